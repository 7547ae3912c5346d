package host

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/reshard"
)

// A scale-out held ACTIVE (the failpoint) is rolled back through the
// stream's own route: routing goes back, the added shards go only after the
// grace since the rollback's switch, and the stream's migrations read the
// same with or without a group.
func TestReshardRollbackOfScaleOut(t *testing.T) {
	srv := redistest.Start(t)
	opts := reshardOpts()
	opts.Resharding.HoldState = reshard.StateActive
	h, _ := redisHost(t, srv, opts)
	ctx := context.Background()
	c := srv.Client()
	one := 1
	_, err := h.Service().CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &one, RequestedBy: "test"})
	require.NoError(t, err)
	a := &reshardMember{id: "a"}
	require.Eventually(t, func() bool { a.beat(t, h); return len(ownedSet(a)) == 1 }, 10*time.Second, 10*time.Millisecond)

	resp, err := scaleTo(t, h, 3)
	require.NoError(t, err)
	id := resp.Migrations[0].ReshardingID
	waitMigration(t, h, id, reshard.StateActive, a)
	rb, err := h.Service().StreamRollback(ctx, "orders", id, protocol.RollbackRequest{RequestedBy: "sre", Reason: "too many"})
	require.NoError(t, err)
	require.Equal(t, reshard.StateRollingBack, rb.State)
	require.Empty(t, rb.ConsumerGroup, "the stream's view names no group")
	_, err = h.Service().Rollback(ctx, "orders", "billing", id, protocol.RollbackRequest{RequestedBy: "sre"})
	require.ErrorIs(t, err, coordinator.ErrRollbackNotAllowed)
	m := waitMigration(t, h, id, reshard.StateRolledBack, a)
	require.Equal(t, "sre", m.RollbackRequestedBy)
	r, err := h.Service().ProducerRouting(ctx, "orders", "billing")
	require.NoError(t, err)
	require.Equal(t, 1, r.ShardCount)
	require.Zero(t, c.Exists(ctx, "orders:1", "orders:2").Val())

	// The added shards were retired no earlier than the grace after routing went back.
	var back, done time.Time
	for _, e := range m.History {
		at, err := time.Parse(time.RFC3339Nano, e.At)
		require.NoError(t, err)
		if e.State == reshard.StateRollingBack && back.IsZero() {
			back = at
		}
		if e.State == reshard.StateRolledBack {
			done = at
		}
	}
	require.GreaterOrEqual(t, done.Sub(back), opts.Resharding.RoutingGrace, "history %+v", m.History)

	// The stream's migrations, with and without a group.
	list, err := h.Service().StreamMigrations(ctx, "orders")
	require.NoError(t, err)
	require.Len(t, list.Migrations, 1)
	require.Nil(t, list.ActiveReshardingID)
	one1, err := h.Service().StreamMigration(ctx, "orders", id)
	require.NoError(t, err)
	require.Equal(t, reshard.StateRolledBack, one1.State)
	_, err = h.Service().StreamMigration(ctx, "orders", "rs-9")
	require.ErrorIs(t, err, coordinator.ErrMigrationNotFound)
	_, err = h.Service().StreamMigrations(ctx, "ghost")
	require.ErrorIs(t, err, coordinator.ErrStreamNotFound)
	_, err = h.Service().StreamRollback(ctx, "orders", id, protocol.RollbackRequest{RequestedBy: "sre"})
	require.ErrorIs(t, err, coordinator.ErrRollbackNotAllowed)
}

// A stream without groups shows its migration through the stream's routes
// (the per-group ones need a group).
func TestStreamMigrationsWithoutGroups(t *testing.T) {
	srv := redistest.Start(t)
	opts := reshardOpts()
	h, _ := redisHost(t, srv, opts)
	ctx := context.Background()
	two := 2
	_, err := h.Service().CreateStream(ctx, "bare", protocol.CreateStreamRequest{InitialShardCount: &two, RequestedBy: "test"})
	require.NoError(t, err)
	n := 4
	resp, err := h.Service().Scale(ctx, "bare", protocol.ScaleRequest{TargetShardCount: &n, RequestedBy: "test"})
	require.NoError(t, err)
	require.Empty(t, resp.AffectedConsumerGroups)
	id := resp.Migrations[0].ReshardingID
	require.Eventually(t, func() bool {
		m, err := h.Service().StreamMigration(ctx, "bare", id)
		require.NoError(t, err)
		return m.State == reshard.StateDeprecated
	}, 10*time.Second, 10*time.Millisecond)
	list, err := h.Service().StreamMigrations(ctx, "bare")
	require.NoError(t, err)
	require.Len(t, list.Migrations, 1)
	require.Equal(t, 4, list.Migrations[0].ToShardCount)
	_, err = h.Service().Migrations(ctx, "bare", "nobody")
	require.ErrorIs(t, err, coordinator.ErrGroupNotFound)
}
