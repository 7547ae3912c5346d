package groupwire

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/wire"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// A heartbeat and its response survive the trip through protobuf bytes
// unchanged (what a remote node receives is what the local node sent).
func TestWireHeartbeatRoundTrip(t *testing.T) {
	acked := "2026-12-01T00:00:00Z"
	in := &groupmsg.HeartbeatRequest{PathMemberID: "m/1", Deadline: time.Unix(0, 1_700_000_000_123_456_789), Request: protocol.HeartbeatRequest{
		ProtocolVersion: 1, RequestID: "r1", MemberID: "m/1", MemberName: "worker é", MemberEpoch: 7, MetadataVersion: 3,
		RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 8, AvailableConcurrency: 5},
		OwnedShards:             []protocol.ShardID{{ShardIndex: 0}, {ShardIndex: 5}},
		RevokingShards:          []protocol.RevokingShard{{Shard: protocol.ShardID{ShardIndex: 2}, State: "DRAINING", InFlight: 3, AckedAt: &acked}},
		ShardProgress:           []protocol.ShardProgress{{Shard: protocol.ShardID{ShardIndex: 0}, StreamKey: "orders:0", LastDeliveredID: "1-1", LastAckedID: "1-0", PendingCount: 2, UpdatedAt: acked}},
		IncarnationID:           "9f3a", Principal: "billing",
	}}
	got := wireRoundTrip(t, in).(*groupmsg.HeartbeatRequest)
	require.WithinDuration(t, in.Deadline, got.Deadline, 0, "a deadline in the past stays the caller's")
	got.Deadline = in.Deadline
	require.Equal(t, in, got)

	// A caller's clock running ahead cannot stretch the wait past its own timeout.
	ahead := &wire.GroupRequest{DeadlineUnixNano: time.Now().Add(time.Hour).UnixNano(), TimeoutNanos: int64(time.Second)}
	recv := time.Now()
	require.Equal(t, recv.Add(time.Second), Deadline(ahead, recv))

	resp := protocol.HeartbeatResponse{ResponseTo: "r1", Status: protocol.StatusOK, MemberID: "m/1", MemberEpoch: 8,
		HeartbeatIntervalMs: 100, RebalanceTimeoutMs: 1000, MemberLeaseTTLMs: 600, GroupEpoch: 9, AssignmentEpoch: 9, MetadataVersion: 3,
		Assignment: protocol.Assignment{AssignedShards: []protocol.ShardID{{ShardIndex: 1}}, PendingShards: []protocol.ShardID{}, MetadataVersion: 3},
		Message:    "x"}
	rb, err := proto.Marshal(ReplyToWire(&groupmsg.HeartbeatReply{Response: resp}))
	require.NoError(t, err)
	var rw wire.GroupReply
	require.NoError(t, proto.Unmarshal(rb, &rw))
	reply, err := ReplyFromWire(in, &rw)
	require.NoError(t, err)
	require.Equal(t, resp, reply.(*groupmsg.HeartbeatReply).Response)
}

// Errors cross nodes as codes: errors.Is still finds the sentinel the host
// maps to an HTTP status, and the text is kept.
func TestWireErrorCodes(t *testing.T) {
	for _, sentinel := range []error{persistence.ErrUnavailable, persistence.ErrFenced, persistence.ErrConflict,
		persistence.ErrNotFound, groupmsg.ErrStreamMissing, persistence.ErrBehind} {
		err := fmt.Errorf("group a/b: %w", sentinel)
		r := ReplyToWire(&groupmsg.ErrorReply{Err: err})
		require.NotEqual(t, wire.Code_OK, r.Code, sentinel)
		back, e := ReplyFromWire(&groupmsg.ResizeRequest{}, r)
		require.NoError(t, e)
		got := back.(*groupmsg.ErrorReply).Err
		require.ErrorIs(t, got, sentinel)
		require.Equal(t, err.Error(), got.Error())
	}
	// Store-behind is wrapped with fenced: it keeps its own code.
	both := fmt.Errorf("x: %w", errors.Join(persistence.ErrBehind, persistence.ErrFenced))
	require.Equal(t, wire.Code_BEHIND, codeOf(both))
	require.Nil(t, errorFromCode(wire.Code_OK, ""))
	_, err := RequestToWire(&groupmsg.PruneTick{}, time.Now())
	require.ErrorIs(t, err, errBadWireRequest)
}

// An admin request's id and a resize's migration id cross nodes, so the
// group's log lines name them wherever the group runs.
func TestWireCarriesRequestIDs(t *testing.T) {
	for _, in := range []any{&groupmsg.DeleteRequest{Force: true, RequestID: "req-7"}, &groupmsg.ResizeRequest{ShardCount: 8, MetadataVersion: 3, RequestID: "rs-2"},
		&groupmsg.RebalancingRequest{Paused: true, RequestedBy: "alice", Reason: "deploy é", RequestID: "req-9"}} {
		out := wireRoundTrip(t, in)
		require.Equal(t, in, out)
	}
}

// wireRoundTrip sends a request through its protobuf form as bytes and back,
// as a forwarded request travels between nodes.
func wireRoundTrip(t *testing.T, in any) any {
	t.Helper()
	w, err := RequestToWire(in, time.Now())
	require.NoError(t, err)
	b, err := proto.Marshal(w)
	require.NoError(t, err)
	var back wire.GroupRequest
	require.NoError(t, proto.Unmarshal(b, &back))
	out, err := RequestFromWire(&back, time.Now())
	require.NoError(t, err)
	return out
}
