package membersdk

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

// scripted answers every heartbeat with the current reply.
type scripted struct {
	mu    sync.Mutex
	reply protocol.HeartbeatResponse
}

func (s *scripted) set(r protocol.HeartbeatResponse) {
	s.mu.Lock()
	s.reply = r
	s.mu.Unlock()
}

func (s *scripted) answer(protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reply, true
}

func reply(status protocol.Status, epoch, mv int64, assigned ...int) protocol.HeartbeatResponse {
	return protocol.HeartbeatResponse{Status: status, MemberEpoch: epoch, MetadataVersion: mv,
		Assignment: protocol.Assignment{AssignedShards: protocol.ShardIDs(assigned), PendingShards: []protocol.ShardID{}, MetadataVersion: mv}}
}

func TestStatusesOtherThanOK(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 3)
	f := newFakeCoord(t, 1)
	var s scripted
	s.set(reply(protocol.StatusOK, 4, 2, 0, 1))
	f.setScript(s.answer)
	var ev events
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) && ev.has(EventShardStarted, "m0", 1) }, 3*time.Second, "started 0 and 1")

	owned := func() []int { r, _ := f.lastRequest("m0"); return ownedIn(r) }
	waitRequests := func(n int) {
		k := len(f.requests("m0"))
		eventually(t, func() bool { return len(f.requests("m0")) >= k+n }, 3*time.Second, "more heartbeats")
	}

	// RETRY: keep everything, start nothing, epoch unchanged.
	s.set(reply(protocol.StatusRetry, 0, 0, 2))
	waitRequests(3)
	require.Equal(t, []int{0, 1}, owned())
	r, _ := f.lastRequest("m0")
	require.Equal(t, int64(4), r.MemberEpoch)
	require.False(t, ev.has(EventShardStarted, "m0", 2))
	require.NotEmpty(t, ev.find(EventHeartbeatFailed))

	// REVOKE_PENDING with shard 2 assigned: start nothing new.
	s.set(reply(protocol.StatusRevokePending, 4, 2, 0, 1, 2))
	waitRequests(3)
	require.Equal(t, []int{0, 1}, owned())
	require.False(t, ev.has(EventShardStarted, "m0", 2))

	// SYNC_METADATA: adopt the version, keep only assigned shards, start nothing.
	s.set(reply(protocol.StatusSyncMetadata, 4, 1, 0, 2))
	eventually(t, func() bool { return ev.has(EventShardReleased, "m0", 1) }, 3*time.Second, "shard 1 revoked")
	waitRequests(2)
	require.Equal(t, []int{0}, owned())
	r, _ = f.lastRequest("m0")
	require.Equal(t, int64(1), r.MetadataVersion)
	require.False(t, ev.has(EventShardStarted, "m0", 2))

	// OK again: the assignment is applied.
	s.set(reply(protocol.StatusOK, 5, 3, 0, 2))
	eventually(t, func() bool { return slices.Equal(owned(), []int{0, 2}) }, 3*time.Second, "shard 2 started on OK")
	r, _ = f.lastRequest("m0")
	require.Equal(t, int64(5), r.MemberEpoch)
	require.Equal(t, int64(3), r.MetadataVersion)
	require.False(t, ev.has(EventFenced, "", -1))
	require.NoError(t, stop())
}

// The coordinator creates the consumer group on every shard before it hands
// the shard out; a group missing on an owned shard (deleted by an operator)
// is not recreated by the member: the shard is not read, stays owned until
// the coordinator revokes it, and is released then.
func TestMissingConsumerGroupIsNotRecreated(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 0)
	xadd(t, rc, 0, "k", "early") // stream exists, group does not
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var h handled
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { h.add(m); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 5*time.Second, "shard started")
	beats := len(f.requests("m0"))
	eventually(t, func() bool { return len(f.requests("m0")) >= beats+3 }, 5*time.Second, "heartbeats go on")
	last := f.requests("m0")
	require.Equal(t, []int{0}, ownedIn(last[len(last)-1]), "still owned")
	groups, err := rc.XInfoGroups(context.Background(), protocol.StreamKey(testStream, 0)).Result()
	require.NoError(t, err)
	require.Empty(t, groups, "the group was not recreated")
	require.Zero(t, h.count())
	f.setTarget("m0")
	eventually(t, func() bool { return ev.has(EventShardReleased, "m0", 0) }, 5*time.Second, "released once revoked")
	require.NoError(t, stop())
}

func TestRefusedJoinIsRetriedAtTheRetryPace(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setScript(func(req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool) {
		return protocol.HeartbeatResponse{Status: protocol.StatusUnknownMemberID, Message: "stream orders does not exist"}, true
	})
	var ev events
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	runAt := time.Now()
	stop, _ := runConsumer(t, c)
	// Wait for the retries themselves (a fixed wait failed under load), then
	// check their pace: each wait is at least ½ RetryInterval (25ms, jitter),
	// so n joins take at least (n-1)·25ms; a tight loop would exceed that.
	eventually(t, func() bool { return len(f.requests("m0")) >= 3 }, 20*time.Second, "refused join retried")
	n, elapsed := len(f.requests("m0")), time.Since(runAt)
	require.LessOrEqual(t, n, 2+int(elapsed/(25*time.Millisecond)), "RetryInterval is 50ms: no tight loop (%d joins in %s)", n, elapsed)
	require.Empty(t, ev.find(EventFenced))
	f.setScript(nil)
	f.setTarget("m0", 0)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 3*time.Second, "joins once the stream exists")
	require.NoError(t, stop())
}
