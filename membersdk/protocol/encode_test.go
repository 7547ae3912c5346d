package protocol

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func sampleResponse() HeartbeatResponse {
	return HeartbeatResponse{ResponseTo: "0b6c8d8e-2f6a", Status: StatusOK, MemberID: "10.0.3.7-m0", MemberEpoch: 7,
		HeartbeatIntervalMs: 3000, RebalanceTimeoutMs: 60000, MemberLeaseTTLMs: 15000, GroupEpoch: 7, AssignmentEpoch: 7,
		MetadataVersion: 3, Assignment: Assignment{AssignedShards: ShardIDs([]int{0, 5, 9}), PendingShards: []ShardID{}, MetadataVersion: 3}}
}

func TestAppendHeartbeatResponseMatchesMarshal(t *testing.T) {
	cases := []HeartbeatResponse{sampleResponse(), {}}
	r := sampleResponse()
	r.Status, r.Message = StatusRetry, `keep "ownership" & retry <soon> \ é 사 `+"\u2028\x01\xff"
	r.MemberID, r.MemberEpoch, r.Assignment.PendingShards = "사용자-42", -1, nil
	cases = append(cases, r)
	for _, c := range cases {
		want, err := json.Marshal(c)
		require.NoError(t, err)
		require.Equal(t, string(want), string(AppendHeartbeatResponse(nil, &c)))
	}
}

func FuzzAppendHeartbeatResponse(f *testing.F) {
	f.Add("r1", "OK", "m", int64(3), "", 2)
	f.Add("<&>", "RETRY", "사용자", int64(-1), "why \"not\"\n", 0)
	f.Fuzz(func(t *testing.T, to, status, member string, epoch int64, msg string, shards int) {
		r := sampleResponse()
		r.ResponseTo, r.Status, r.MemberID, r.MemberEpoch, r.Message = to, Status(status), member, epoch, msg
		if shards >= 0 && shards < 100 {
			r.Assignment.AssignedShards = make([]ShardID, shards)
			for i := range shards {
				r.Assignment.AssignedShards[i].ShardIndex = i * int(epoch%7)
			}
		}
		want, err := json.Marshal(r)
		require.NoError(t, err)
		require.Equal(t, string(want), string(AppendHeartbeatResponse(nil, &r)))
	})
}

func BenchmarkEncodeHeartbeatResponse(b *testing.B) {
	r := sampleResponse()
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 512)
		for b.Loop() {
			buf = AppendHeartbeatResponse(buf[:0], &r)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
