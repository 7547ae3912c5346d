package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/host"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
	"github.com/redisstream/coordinator/reshard"
)

// While a scale-in 8 → 4 drains shards 4..7, they are the stream's and
// read; shard 8 is not, even with a key of that name.
func TestMessagesReadsDrainingShards(t *testing.T) {
	store, prov := memstore.New(), memstore.NewProvisioner()
	h := host.New(host.Options{Store: store, Provisioner: prov, NodeID: "test", TrustEmptyStore: true,
		Rules: model.Config{HeartbeatInterval: time.Second, LeaseTTL: 10 * time.Second, RebalanceTimeout: 10 * time.Second, Retention: time.Hour}})
	t.Cleanup(h.Stop)
	ctx := context.Background()
	require.NoError(t, h.Start(ctx))
	eight := 8
	_, err := h.Service().CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &eight, RequestedBy: "test"})
	require.NoError(t, err)
	rec, err := store.GetStream(ctx, "orders")
	require.NoError(t, err)
	rec.ShardCount = 4 // routing moved to 4, shards 4..7 still consumed
	rec.Extra = reshard.Layout{Consume: 8, Seq: 1}.Encode()
	_, err = store.UpdateStream(ctx, rec, rec.Revision)
	require.NoError(t, err)

	prov.AddEntries("orders", 7, persistence.StreamEntry{Fields: map[string]string{"n": "1"}})
	prov.AddEntries("orders", 8, persistence.StreamEntry{Fields: map[string]string{"foreign": "1"}})
	page, err := h.Service().Messages(ctx, "orders", 7, "-", 10)
	require.NoError(t, err)
	require.Len(t, page.Messages, 1)
	require.Equal(t, "1", page.Messages[0].Fields["n"])
	_, err = h.Service().Messages(ctx, "orders", 8, "-", 10)
	require.ErrorIs(t, err, coordinator.ErrShardNotFound)
	require.Contains(t, err.Error(), "shards 0..7 (shardCount 4)")
}
