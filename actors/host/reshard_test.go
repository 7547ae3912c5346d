package host

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/reshard"
	"github.com/redisstream/coordinator/reshard/driver"
)

// reshardMember is a well-behaved protocol member: it holds exactly what it
// was last assigned (releasing revoked shards at once).
type reshardMember struct {
	id    string
	epoch int64
	owned []protocol.ShardID
}

func (m *reshardMember) beat(t *testing.T, h *Host) {
	t.Helper()
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: m.id + "-r", MemberID: m.id, MemberEpoch: m.epoch,
		RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 4, AvailableConcurrency: 4},
		OwnedShards:             m.owned, RevokingShards: []protocol.RevokingShard{}}
	if m.owned == nil {
		req.OwnedShards = []protocol.ShardID{}
	}
	resp, err := h.Service().Heartbeat(context.Background(), "orders", "billing", m.id, req)
	require.NoError(t, err)
	if resp.Status == protocol.StatusOK {
		m.epoch, m.owned = resp.MemberEpoch, resp.Assignment.AssignedShards
	}
}

func ownedSet(ms ...*reshardMember) map[int]int {
	out := map[int]int{}
	for _, m := range ms {
		for _, s := range m.owned {
			out[s.ShardIndex]++
		}
	}
	return out
}

// waitMigration beats the members until the migration id reaches state.
func waitMigration(t *testing.T, h *Host, id, state string, ms ...*reshardMember) protocol.Migration {
	t.Helper()
	var last protocol.Migration
	require.Eventually(t, func() bool {
		for _, m := range ms {
			m.beat(t, h)
		}
		got, err := h.Service().Migration(context.Background(), "orders", "billing", id)
		require.NoError(t, err)
		last = got
		return got.State == state
	}, 20*time.Second, 20*time.Millisecond, "migration %s never reached %s", id, state)
	t.Logf("migration %s reached %s: %+v", id, state, last)
	return last
}

func reshardOpts() Options {
	return Options{Rules: quickRules, TrustEmptyStore: true, Resharding: driver.Options{
		RoutingGrace: 300 * time.Millisecond, PollInterval: 30 * time.Millisecond, DriverLease: 2 * time.Second, RetiredRetention: time.Hour}}
}

func scaleTo(t *testing.T, h *Host, n int) (protocol.ScaleResponse, error) {
	t.Helper()
	return h.Service().Scale(context.Background(), "orders", protocol.ScaleRequest{TargetShardCount: &n, RequestedBy: "test", Reason: "reshard test"})
}

// Scale-out, scale-in with a shard that must drain first, and a finished
// scale-out that cannot be rolled back, on one node and a real redis-server: routing, the group's
// shard set, the Redis keys and the migration history follow, and no shard
// with undelivered entries is retired.
func TestReshardOutInAndRollback(t *testing.T) {
	srv := redistest.Start(t)
	h, store := redisHost(t, srv, reshardOpts())
	ctx := context.Background()
	c := srv.Client()
	two := 2
	_, err := h.Service().CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &two, RequestedBy: "test"})
	require.NoError(t, err)
	a, b := &reshardMember{id: "a"}, &reshardMember{id: "b"}
	require.Eventually(t, func() bool { a.beat(t, h); b.beat(t, h); return len(ownedSet(a, b)) == 2 }, 10*time.Second, 10*time.Millisecond)

	// Scale-out 2 → 4.
	resp, err := scaleTo(t, h, 4)
	require.NoError(t, err)
	require.Equal(t, []string{"billing"}, resp.AffectedConsumerGroups)
	require.Len(t, resp.Migrations, 1)
	id := resp.Migrations[0].ReshardingID
	m := waitMigration(t, h, id, reshard.StateDeprecated, a, b)
	states := []string{}
	for _, s := range m.History {
		states = append(states, s.State)
	}
	require.Equal(t, []string{"PREPARING", "ACTIVE", "DEPRECATED"}, states, "a scale-out waits no grace: it retires nothing")
	for i := 2; i < 4; i++ {
		groups, err := c.XInfoGroups(ctx, protocol.StreamKey("orders", i)).Result()
		require.NoError(t, err)
		require.Len(t, groups, 1)
		require.Equal(t, "billing", groups[0].Name)
	}
	r, err := h.Service().ProducerRouting(ctx, "orders", "billing")
	require.NoError(t, err)
	require.Equal(t, 4, r.ShardCount)
	require.EqualValues(t, m.MetadataVersion, r.MetadataVersion)
	require.Eventually(t, func() bool { a.beat(t, h); b.beat(t, h); o := ownedSet(a, b); return len(o) == 4 && o[3] == 1 }, 10*time.Second, 10*time.Millisecond)

	// Scale-in 4 → 1 with an undelivered entry on shard 3: it stays consumed and is
	// retired only once the group acknowledged it.
	require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "orders:3", NoMkStream: true, Values: []any{"k", "v"}}).Err())
	resp, err = scaleTo(t, h, 1)
	require.NoError(t, err)
	id = resp.Migrations[0].ReshardingID
	r, err = h.Service().ProducerRouting(ctx, "orders", "billing")
	require.NoError(t, err)
	require.Equal(t, 1, r.ShardCount, "removed shards leave routing at once")
	require.Eventually(t, func() bool {
		a.beat(t, h)
		b.beat(t, h)
		got, err := h.Service().Migration(ctx, "orders", "billing", id)
		require.NoError(t, err)
		for _, s := range got.Shards {
			if s.ShardIndex == 3 && len(s.BlockedBy) == 1 && s.BlockedBy[0].Lag == 1 {
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "shard 3 must wait for its undelivered entry")
	_, err = scaleTo(t, h, 5)
	require.ErrorIs(t, err, coordinator.ErrMigrationActive, "a second scale while one is in progress")
	g, err := h.Service().MonitorGroup(ctx, "orders", "billing")
	require.NoError(t, err)
	require.Equal(t, 4, g.ShardCount, "removed shards stay assigned while they drain")
	sv, err := h.Service().Stream(ctx, "orders")
	require.NoError(t, err)
	require.Equal(t, 1, sv.ShardCount)
	require.Equal(t, 4, sv.ConsumedShardCount)
	require.Equal(t, []string{"billing"}, sv.Groups)
	require.NotNil(t, sv.ActiveMigration)
	all, err := h.Service().Streams(ctx)
	require.NoError(t, err)
	require.Len(t, all.Streams, 1)
	_, err = h.Service().Stream(ctx, "ghost")
	require.ErrorIs(t, err, coordinator.ErrStreamNotFound)
	require.NotNil(t, g.ActiveMigration)
	require.EqualValues(t, 1, c.Exists(ctx, "orders:3").Val())
	got, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "billing", Consumer: "x", Streams: []string{"orders:3", ">"}, Count: 10}).Result()
	require.NoError(t, err)
	require.NoError(t, c.XAck(ctx, "orders:3", "billing", got[0].Messages[0].ID).Err())
	m = waitMigration(t, h, id, reshard.StateDeprecated, a, b)
	for i := 1; i < 4; i++ {
		require.Zero(t, c.Exists(ctx, protocol.StreamKey("orders", i)).Val())
		require.Equal(t, 1, int(c.Exists(ctx, reshard.RetiredKey(protocol.StreamKey("orders", i), id)).Val()))
		require.Zero(t, c.Exists(ctx, protocol.FenceKey(protocol.StreamKey("orders", i), "billing")).Val(), "fence of retired shard %d", i)
	}
	require.EqualValues(t, 1, c.XLen(ctx, reshard.RetiredKey("orders:3", id)).Val(), "the retired stream keeps its entries")
	require.Eventually(t, func() bool { a.beat(t, h); b.beat(t, h); o := ownedSet(a, b); return len(o) == 1 && o[0] == 1 }, 10*time.Second, 10*time.Millisecond)
	g, err = h.Service().MonitorGroup(ctx, "orders", "billing")
	require.NoError(t, err)
	require.Equal(t, 1, g.ShardCount)
	require.Nil(t, g.ActiveMigration)

	// Scale-out 1 → 3: finished, it cannot be rolled back (rollbacks: TestReshardRollbackOfScaleOut).
	resp, err = scaleTo(t, h, 3)
	require.NoError(t, err)
	id = resp.Migrations[0].ReshardingID
	require.Contains(t, []string{reshard.StateActive, reshard.StateDeprecated}, resp.Migrations[0].State, "activated before the answer")
	waitMigration(t, h, id, reshard.StateDeprecated, a, b)
	// Bad requests change nothing.
	_, err = scaleTo(t, h, 3)
	require.ErrorIs(t, err, coordinator.ErrInvalidArgument)
	_, err = h.Service().Rollback(ctx, "orders", "billing", "rs-99", protocol.RollbackRequest{RequestedBy: "sre"})
	require.ErrorIs(t, err, coordinator.ErrMigrationNotFound)
	_, err = h.Service().Rollback(ctx, "orders", "billing", id, protocol.RollbackRequest{RequestedBy: "sre"})
	require.ErrorIs(t, err, coordinator.ErrRollbackNotAllowed, "a finished scale-out")
	list, err := h.Service().Migrations(ctx, "orders", "billing")
	require.NoError(t, err)
	require.Len(t, list.Migrations, 3)
	require.Nil(t, list.ActiveReshardingID)
	require.Equal(t, id, list.Migrations[0].ReshardingID, "newest first")
	// The driver unmarks the stream on its next step after the finish.
	require.Eventually(t, func() bool {
		streams, err := store.ReshardingStreams(ctx)
		require.NoError(t, err)
		return len(streams) == 0
	}, 5*time.Second, 10*time.Millisecond, "the stream stays marked as resharding after its migrations finished")
}
