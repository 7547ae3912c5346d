package membersdk

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

func TestConsumerAppliesAndRevokesAssignment(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 2)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0, 1)
	var ev events
	var h handled
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { h.add(m); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)

	id0 := xadd(t, rc, 0, "k", "a")
	id1 := xadd(t, rc, 1, "k", "b")
	eventually(t, func() bool { return len(h.ids(0)) == 1 && len(h.ids(1)) == 1 }, 5*time.Second, "both shards consumed")
	require.Equal(t, []string{id0}, h.ids(0))
	require.Equal(t, []string{id1}, h.ids(1))
	eventually(t, func() bool { return pendingCount(t, rc, 0) == 0 && pendingCount(t, rc, 1) == 0 }, 2*time.Second, "acked")
	require.Equal(t, int64(1), h.calls[0].Epoch)

	// The progress of both shards is reported.
	eventually(t, func() bool {
		req, ok := f.lastRequest("m0")
		if !ok || len(req.ShardProgress) != 2 {
			return false
		}
		p := req.ShardProgress[0]
		return p.StreamKey == "orders:0" && p.LastDeliveredID == id0 && p.LastAckedID == id0 && p.PendingCount == 0 && p.UpdatedAt != ""
	}, 2*time.Second, "shard progress reported")
	req, _ := f.lastRequest("m0")
	require.Equal(t, protocol.Capacity{RuntimeMaxConcurrency: DefaultConcurrency, AvailableConcurrency: DefaultConcurrency}, req.RuntimeConsumerCapacity)
	require.Equal(t, "test", req.MemberName)

	// Revoke shard 0.
	f.setTarget("m0", 1)
	eventually(t, func() bool { return ev.has(EventShardReleased, "m0", 0) }, 3*time.Second, "shard 0 released")
	eventually(t, func() bool {
		req, _ := f.lastRequest("m0")
		return slices.Equal(ownedIn(req), []int{1}) && len(req.RevokingShards) == 0
	}, 2*time.Second, "release reported")
	xadd(t, rc, 0, "k", "after-revoke")
	id1b := xadd(t, rc, 1, "k", "c")
	eventually(t, func() bool { return len(h.ids(1)) == 2 }, 3*time.Second, "shard 1 still consumed")
	require.Equal(t, id1b, h.ids(1)[1])
	// Asserts that nothing happens: no event marks "not read", so give a
	// wrongly running reader 200ms to show up.
	time.Sleep(200 * time.Millisecond)
	require.Len(t, h.ids(0), 1, "revoked shard must not be read")
	require.False(t, ev.has(EventShardReleased, "m0", 1))

	require.NoError(t, stop())
}

func TestPendingShardsAreNeverStarted(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 2)
	f := newFakeCoord(t, 1)
	f.setScript(func(req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool) {
		return protocol.HeartbeatResponse{Status: protocol.StatusOK, MemberEpoch: 3, MetadataVersion: 2,
			Assignment: protocol.Assignment{AssignedShards: protocol.ShardIDs([]int{0}), PendingShards: protocol.ShardIDs([]int{1})}}, true
	})
	var ev events
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 3*time.Second, "shard 0 started")
	eventually(t, func() bool {
		req, _ := f.lastRequest("m0")
		return req.MemberEpoch == 3 && req.MetadataVersion == 2
	}, 2*time.Second, "epoch and metadata version adopted")
	require.False(t, ev.has(EventShardStarted, "m0", 1))
	req, _ := f.lastRequest("m0")
	require.Equal(t, []int{0}, ownedIn(req))
	require.NoError(t, stop())
}

func TestTakeoverClaimsPreviousOwnersPendingEntries(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	var old []string
	for i := range 3 {
		old = append(old, xadd(t, rc, 0, "n", i))
	}
	// A previous owner read them and died without acking.
	res, err := rc.XReadGroup(ctx, &redis.XReadGroupArgs{Group: testGroup, Consumer: "dead-member", Streams: []string{"orders:0", ">"}, Count: 10}).Result()
	require.NoError(t, err)
	require.Len(t, res[0].Messages, 3)
	require.Equal(t, int64(3), pendingCount(t, rc, 0))

	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var h handled
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { h.add(m); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return h.count() == 3 }, 5*time.Second, "claimed entries handled")
	require.Equal(t, old, h.ids(0), "claimed entries are handled first, in order")
	for _, m := range h.calls {
		require.Equal(t, int64(2), m.DeliveryCount)
	}
	newID := xadd(t, rc, 0, "n", "new")
	eventually(t, func() bool { return h.count() == 4 }, 3*time.Second, "new entry handled")
	require.Equal(t, newID, h.calls[3].ID)
	require.Equal(t, int64(1), h.calls[3].DeliveryCount)
	eventually(t, func() bool { return pendingCount(t, rc, 0) == 0 }, 2*time.Second, "all acked")
	require.NoError(t, stop())
}

// A previous owner blocked in XREADGROUP when it lost the shard (paused
// process) can have entries delivered to it after the new owner took over
// and claimed what was pending then. The owner must find and claim them.
func TestOwnerClaimsEntriesDeliveredToAStaleOwnerAfterTakeover(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var h handled
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { h.add(m); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 5*time.Second, "m0 reads shard 0")

	// The stale owner's blocked read is served now, after the takeover. In one
	// MULTI the entry is added and delivered to the stale owner before m0's
	// own blocked read can be served.
	var id string
	_, err = rc.TxPipelined(ctx, func(p redis.Pipeliner) error {
		add := p.XAdd(ctx, &redis.XAddArgs{Stream: "orders:0", Values: []any{"n", "late"}})
		p.XReadGroup(ctx, &redis.XReadGroupArgs{Group: testGroup, Consumer: "stale-owner", Streams: []string{"orders:0", ">"}, Count: 10, Block: -1})
		_ = add
		return nil
	})
	require.NoError(t, err)
	res, err := rc.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "orders:0", Group: testGroup, Start: "-", End: "+", Count: 10, Consumer: "stale-owner"}).Result()
	require.NoError(t, err)
	require.Len(t, res, 1, "the entry is pending under the stale owner")
	id = res[0].ID
	eventually(t, func() bool {
		for _, got := range h.ids(0) {
			if got == id {
				return true
			}
		}
		return false
	}, 6*time.Second, "the entry delivered to the stale owner is claimed and handled by the owner")
	eventually(t, func() bool { return pendingCount(t, rc, 0) == 0 }, 6*time.Second, "nothing left pending")
	require.NoError(t, stop())
}
