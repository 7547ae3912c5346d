package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const validHeartbeat = `{"protocolVersion":1,"requestId":"r1","memberId":"10.0.3.7-m0","memberName":"orders-worker",
 "memberEpoch":0,"metadataVersion":0,"extraField":{"ignored":true},
 "runtimeConsumerCapacity":{"runtimeMaxConcurrency":4,"availableConcurrency":4},
 "ownedShards":[{"shardIndex":0}],
 "revokingShards":[{"shard":{"shardIndex":3},"state":"DRAINING","inFlight":2,"ackedAt":null}],
 "shardProgress":[{"shard":{"shardIndex":0},"streamKey":"orders:0","lastDeliveredId":"1-0","lastAckedId":"1-0","pendingCount":0,"updatedAt":"2026-01-01T00:00:00Z"}]}`

func TestDecodeHeartbeatAcceptsReferenceBody(t *testing.T) {
	hb, err := DecodeHeartbeat([]byte(validHeartbeat))
	require.NoError(t, err)
	require.Equal(t, 1, hb.ProtocolVersion)
	require.Equal(t, "10.0.3.7-m0", hb.MemberID)
	require.Equal(t, []int{0}, Indexes(hb.OwnedShards))
	require.Equal(t, RevokingShard{Shard: ShardID{3}, State: "DRAINING", InFlight: 2}, hb.RevokingShards[0])
	require.Equal(t, "orders:0", hb.ShardProgress[0].StreamKey)
}

func TestDecodeHeartbeatRejects(t *testing.T) {
	cases := map[string]string{
		"empty":             ``,
		"syntax":            `{"protocolVersion":1,`,
		"array":             `[1,2]`,
		"wrong type epoch":  strings.Replace(validHeartbeat, `"memberEpoch":0`, `"memberEpoch":"zero"`, 1),
		"float epoch":       strings.Replace(validHeartbeat, `"memberEpoch":0`, `"memberEpoch":1.5`, 1),
		"overflow epoch":    strings.Replace(validHeartbeat, `"memberEpoch":0`, `"memberEpoch":99999999999999999999999`, 1),
		"missing requestId": strings.Replace(validHeartbeat, `"requestId":"r1",`, ``, 1),
		"missing capacity":  `{"protocolVersion":1,"requestId":"r","memberId":"m","memberEpoch":0,"metadataVersion":0}`,
		"trailing data":     validHeartbeat + `{}`,
		"shard as string":   strings.Replace(validHeartbeat, `"ownedShards":[{"shardIndex":0}]`, `"ownedShards":[{"shardIndex":"0"}]`, 1),
		"huge member id":    strings.Replace(validHeartbeat, `"10.0.3.7-m0"`, `"`+strings.Repeat("x", MaxStringLength+1)+`"`, 1),
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeHeartbeat([]byte(body))
			require.ErrorIs(t, err, ErrMalformed)
		})
	}
}

func TestDecodeHeartbeatRejectsHugeShardList(t *testing.T) {
	req := HeartbeatRequest{ProtocolVersion: 1, RequestID: "r", MemberID: "m", OwnedShards: make([]ShardID, MaxShardList+1)}
	body, err := json.Marshal(req)
	require.NoError(t, err)
	_, err = DecodeHeartbeat(body)
	require.ErrorIs(t, err, ErrMalformed)
	require.Contains(t, err.Error(), "ownedShards")
}

// The reference's own examples and what it accepts: any non-blank UTF-8
// without control characters; braces only refused in a stream prefix.
func TestValidateName(t *testing.T) {
	good := []string{"orders", "create-order", "a.b_c-1", "orders:v2", "svc:workers", "사용자-42", "with space",
		"ünï-cødé", "emoji-🙂", "a/b", "a|b", "%41", "..", "*?[x]", `\`, strings.Repeat("x", MaxNameLength), strings.Repeat("사", MaxNameLength/3)}
	for _, ok := range good {
		require.NoError(t, ValidateName("streamPrefix", ok), ok)
		require.NoError(t, ValidateName("consumerGroup", ok), ok)
		require.NoError(t, ValidateMemberID(ok), ok)
	}
	for _, bad := range []string{"", " ", "\t", "\u3000", "a\x00b", "a\nb", "a\rb", "tab\there", "del\x7f", "c1\u0085", "bad\xffutf8", strings.Repeat("x", MaxNameLength+1)} {
		for _, kind := range []string{"streamPrefix", "consumerGroup"} {
			err := ValidateName(kind, bad)
			require.ErrorIs(t, err, ErrInvalidName, "%s %q", kind, bad)
			require.Contains(t, err.Error(), kind)
		}
		require.ErrorIs(t, ValidateMemberID(bad), ErrInvalidName, bad)
	}
	for _, braces := range []string{"a{b}", "{orders}", "}", "{"} {
		err := ValidateStreamPrefix(braces)
		require.ErrorIs(t, err, ErrInvalidName, braces)
		require.Contains(t, err.Error(), "hash tag")
		require.NoError(t, ValidateName("consumerGroup", braces), "braces are fine in a group name")
		require.NoError(t, ValidateMemberID(braces), "braces are fine in a member id")
	}
	require.NoError(t, ValidateMemberID("fd00::1-m0"))
	require.Contains(t, ValidateMemberID("a\x00b").Error(), "U+0000")
}

func FuzzDecodeHeartbeat(f *testing.F) {
	f.Add([]byte(validHeartbeat))
	f.Add([]byte(`{"protocolVersion":1,"requestId":"r","memberId":"m","memberEpoch":-1,"metadataVersion":0,"runtimeConsumerCapacity":{}}`))
	f.Add([]byte(`{}`))
	for _, c := range fastCases {
		f.Add([]byte(c.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		// The single-pass path and the encoding/json reference agree.
		checkAgreement(t, body)
		hb, err := DecodeHeartbeat(body)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformed)
			return
		}
		// A decoded request re-encodes and decodes to the same value.
		again, err := json.Marshal(hb)
		require.NoError(t, err)
		hb2, err := DecodeHeartbeat(again)
		require.NoError(t, err)
		require.Equal(t, hb.MemberID, hb2.MemberID)
		require.Equal(t, hb.MemberEpoch, hb2.MemberEpoch)
		require.Equal(t, len(hb.OwnedShards), len(hb2.OwnedShards))
	})
}
