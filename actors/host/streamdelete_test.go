package host

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// A stream is deleted only once it has 0 shards, no migration and no
// groups; before that, each refusal says what is left, and deletes nothing.
func TestDeleteStreamOnlyWhenEmpty(t *testing.T) {
	ctx := context.Background()
	h, store := redisHost(t, redistest.Start(t), reshardOpts())
	two := 2
	_, err := h.Service().CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &two, RequestedBy: "test"})
	require.NoError(t, err)
	m := &reshardMember{id: "m1"}
	m.beat(t, h)
	del := func() error {
		_, err := h.Service().DeleteStream(ctx, "orders", protocol.DeleteStreamRequest{RequestedBy: "ops", Reason: "retired"})
		return err
	}

	err = del()
	require.ErrorIs(t, err, coordinator.ErrStreamNotEmpty)
	require.Contains(t, err.Error(), "stream orders has 2 shard(s): scale it to 0 first (streamctl scale orders 0 --yes")

	resp, err := scaleTo(t, h, 0)
	require.NoError(t, err)
	require.Len(t, resp.Migrations, 1)
	waitMigration(t, h, resp.Migrations[0].ReshardingID, protocol.MigrationDeprecated, m)
	require.Eventually(t, func() bool {
		v, err := h.Service().Stream(ctx, "orders")
		require.NoError(t, err)
		return v.ConsumedShardCount == 0 && v.ActiveMigration == nil
	}, 20*time.Second, 20*time.Millisecond)

	err = del()
	require.ErrorIs(t, err, coordinator.ErrStreamNotEmpty)
	require.Contains(t, err.Error(), "stream orders still has group(s) billing: delete them first (streamctl groups delete orders billing)")
	_, err = store.GetStream(ctx, "orders")
	require.NoError(t, err, "a refused delete keeps the record")

	_, err = h.Service().DeleteGroup(ctx, "orders", "billing", protocol.DeleteGroupRequest{RequestedBy: "ops", Force: true})
	require.NoError(t, err)
	out, err := h.Service().DeleteStream(ctx, "orders", protocol.DeleteStreamRequest{RequestedBy: "ops", Reason: "retired"})
	require.NoError(t, err)
	require.Equal(t, protocol.DeleteStreamResponse{StreamPrefix: "orders", Deleted: true}, out)
	_, err = h.Service().Stream(ctx, "orders")
	require.ErrorIs(t, err, coordinator.ErrStreamNotFound)
	require.ErrorIs(t, del(), coordinator.ErrStreamNotFound)
	list, err := h.Service().Streams(ctx)
	require.NoError(t, err)
	require.Empty(t, list.Streams)

	// The prefix can be used again.
	_, err = h.Service().CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &two, RequestedBy: "test"})
	require.NoError(t, err)
}
