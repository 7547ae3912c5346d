package protocol

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Bodies the single-pass decoder must hand to the reference path, and
// ordinary ones it must decode itself; either way DecodeHeartbeat must give
// what encoding/json gives.
var fastCases = map[string]struct {
	body string
	fast bool
}{
	"reference body":        {validHeartbeat, true},
	"sdk body":              {`{"protocolVersion":1,"requestId":"req-1","memberId":"m","memberName":"sim","memberEpoch":7,"metadataVersion":3,"runtimeConsumerCapacity":{"runtimeMaxConcurrency":4,"availableConcurrency":4},"ownedShards":[{"shardIndex":0},{"shardIndex":5}],"revokingShards":[]}`, true},
	"unicode name":          {strings.Replace(validHeartbeat, `"orders-worker"`, `"사용자-42"`, 1), true},
	"whitespace":            {" \n\t" + validHeartbeat + " \r\n", true},
	"unknown nested":        {strings.Replace(validHeartbeat, `"shardIndex":0}]`, `"shardIndex":0,"x":[1,{"y":"a\"b\u00e9"},-1.5e3,true,null]}]`, 1), true},
	"acked at string":       {strings.Replace(validHeartbeat, `"ackedAt":null`, `"ackedAt":"2026-01-01T00:00:00Z"`, 1), true},
	"negative zero":         {strings.Replace(validHeartbeat, `"memberEpoch":0`, `"memberEpoch":-0`, 1), true},
	"escaped string":        {strings.Replace(validHeartbeat, `"r1"`, `"r\u0031"`, 1), false},
	"escaped key":           {strings.Replace(validHeartbeat, `"requestId"`, `"request\u0049d"`, 1), false},
	"case-folded key":       {strings.Replace(validHeartbeat, `"memberName"`, `"MEMBERNAME"`, 1), false},
	"kelvin-folded key":     {strings.Replace(validHeartbeat, `"ackedAt"`, `"ac\u212aedAt"`, 1), false},
	"duplicate field":       {strings.Replace(validHeartbeat, `"memberEpoch":0`, `"memberEpoch":0,"memberEpoch":4`, 1), false},
	"duplicate nested":      {strings.Replace(validHeartbeat, `"availableConcurrency":4`, `"availableConcurrency":4,"availableConcurrency":2`, 1), false},
	"null name":             {strings.Replace(validHeartbeat, `"orders-worker"`, `null`, 1), false},
	"null list":             {strings.Replace(validHeartbeat, `"ownedShards":[{"shardIndex":0}]`, `"ownedShards":null`, 1), false},
	"null element":          {strings.Replace(validHeartbeat, `"ownedShards":[{"shardIndex":0}]`, `"ownedShards":[null]`, 1), false},
	"exponent":              {strings.Replace(validHeartbeat, `"memberEpoch":0`, `"memberEpoch":1e2`, 1), false},
	"invalid utf8":          {strings.Replace(validHeartbeat, `"orders-worker"`, "\"bad\xffname\"", 1), false},
	"huge epoch":            {strings.Replace(validHeartbeat, `"memberEpoch":0`, `"memberEpoch":9223372036854775807`, 1), false},
	"missing field":         {strings.Replace(validHeartbeat, `"requestId":"r1",`, ``, 1), false},
	"trailing":              {validHeartbeat + "x", false},
	"leading zero":          {strings.Replace(validHeartbeat, `"memberEpoch":0`, `"memberEpoch":01`, 1), false},
	"control char":          {strings.Replace(validHeartbeat, `"orders-worker"`, "\"a\tb\"", 1), false},
	"deep unknown":          {strings.Replace(validHeartbeat, `"extraField":{"ignored":true}`, `"extraField":`+strings.Repeat("[", 100)+strings.Repeat("]", 100), 1), false},
	"bad unknown":           {strings.Replace(validHeartbeat, `"extraField":{"ignored":true}`, `"extraField":tru`, 1), false},
	"empty lists":           {`{"protocolVersion":1,"requestId":"r","memberId":"m","memberEpoch":-1,"metadataVersion":0,"runtimeConsumerCapacity":{},"ownedShards":[],"revokingShards":[],"shardProgress":[]}`, true},
	"incarnation":           {strings.Replace(validHeartbeat, `"memberName"`, `"incarnationId":"9f3a-41237","memberName"`, 1), true},
	"incarnation duplicate": {strings.Replace(validHeartbeat, `"memberName"`, `"incarnationId":"a","incarnationId":"b","memberName"`, 1), false},
	"incarnation null":      {strings.Replace(validHeartbeat, `"memberName"`, `"incarnationId":null,"memberName"`, 1), false},
	"incarnation number":    {strings.Replace(validHeartbeat, `"memberName"`, `"incarnationId":7,"memberName"`, 1), false},
	"instance":              {strings.Replace(validHeartbeat, `"memberName"`, `"instanceId":"orders-worker-3","memberName"`, 1), true},
	"instance duplicate":    {strings.Replace(validHeartbeat, `"memberName"`, `"instanceId":"a","instanceId":"b","memberName"`, 1), false},
	"instance null":         {strings.Replace(validHeartbeat, `"memberName"`, `"instanceId":null,"memberName"`, 1), false},
	"incarnation folded":    {strings.Replace(validHeartbeat, `"memberName"`, `"INCARNATIONID":"x","memberName"`, 1), false},
	"wrong type in unknown": {strings.Replace(validHeartbeat, `"extraField":{"ignored":true}`, `"extraField":{"shardIndex":"x"}`, 1), true},
}

func TestFastDecoderAgreesWithReference(t *testing.T) {
	for name, c := range fastCases {
		t.Run(name, func(t *testing.T) {
			_, fast := decodeHeartbeatFast([]byte(c.body))
			require.Equal(t, c.fast, fast, "fast path taken")
			checkAgreement(t, []byte(c.body))
		})
	}
}

// checkAgreement fails unless DecodeHeartbeat and the reference path agree
// on body, and the fast path, when it accepts body, gives the same request.
func checkAgreement(t *testing.T, body []byte) {
	t.Helper()
	ref, refErr := decodeHeartbeatReference(body)
	if got, ok := decodeHeartbeatFast(body); ok {
		require.NoError(t, refErr, "the fast path accepted a body the reference refuses: %q", body)
		require.Equal(t, ref, got, "%q", body)
	}
	got, err := DecodeHeartbeat(body)
	if refErr != nil {
		require.Equal(t, refErr.Error(), err.Error())
		return
	}
	require.NoError(t, err)
	require.Equal(t, ref, got)
}

func BenchmarkDecodeHeartbeat(b *testing.B) {
	body := []byte(`{"protocolVersion":1,"requestId":"0b6c8d8e-2f6a-4b1e-9a57-3f0f9a1e2c11","memberId":"10.0.3.7-m0","memberName":"orders-worker","memberEpoch":7,"metadataVersion":3,"runtimeConsumerCapacity":{"runtimeMaxConcurrency":4,"availableConcurrency":4},"ownedShards":[{"shardIndex":0},{"shardIndex":5},{"shardIndex":9},{"shardIndex":12},{"shardIndex":33},{"shardIndex":40}],"revokingShards":[]}`)
	b.Run("single-pass", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeHeartbeat(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeHeartbeatReference(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}
