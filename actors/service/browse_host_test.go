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
)

func newBrowseHost(t *testing.T) (*host.Host, *memstore.Provisioner) {
	t.Helper()
	prov := memstore.NewProvisioner()
	h := host.New(host.Options{Store: memstore.New(), Provisioner: prov, NodeID: "test", TrustEmptyStore: true,
		Rules: model.Config{HeartbeatInterval: time.Second, LeaseTTL: 10 * time.Second, RebalanceTimeout: 10 * time.Second, Retention: time.Hour}})
	t.Cleanup(h.Stop)
	require.NoError(t, h.Start(context.Background()))
	four := 4
	_, err := h.Service().CreateStream(context.Background(), "orders", protocol.CreateStreamRequest{InitialShardCount: &four, RequestedBy: "test"})
	require.NoError(t, err)
	return h, prov
}

// Offsets: one row per shard, Redis's numbers beside the coordinator's owners.
func TestOffsetsShowsOwnersAndRedisState(t *testing.T) {
	h, prov := newBrowseHost(t)
	ctx := context.Background()
	_, err := h.Service().Offsets(ctx, "orders", "workers")
	require.ErrorIs(t, err, coordinator.ErrGroupNotFound, "offsets never create a group")
	_, err = h.Service().Offsets(ctx, "nope", "workers")
	require.ErrorIs(t, err, coordinator.ErrStreamNotFound)

	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "r1", MemberID: "m1",
		RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 4, AvailableConcurrency: 4}}
	resp, err := h.Service().Heartbeat(ctx, "orders", "workers", "m1", req)
	require.NoError(t, err)
	require.Equal(t, protocol.StatusOK, resp.Status)
	require.Len(t, resp.Assignment.AssignedShards, 4)
	req.RequestID, req.MemberEpoch, req.MetadataVersion = "r2", resp.MemberEpoch, resp.MetadataVersion
	req.OwnedShards = resp.Assignment.AssignedShards
	resp, err = h.Service().Heartbeat(ctx, "orders", "workers", "m1", req)
	require.NoError(t, err)
	require.Equal(t, protocol.StatusOK, resp.Status)

	prov.AddEntries("orders", 0, persistence.StreamEntry{Fields: map[string]string{"k": "a"}}, persistence.StreamEntry{Fields: map[string]string{"k": "b"}})
	prov.SetShardInfo("orders", "workers", 0, persistence.ShardInfo{Length: 2, LastGeneratedID: "2-0", Pending: 1, Lag: 0, EntriesRead: 2, LastDeliveredID: "2-0"})
	prov.SetConsumers("orders", "workers", 0, persistence.ShardConsumer{Name: "m1", Pending: 1, IdleMs: 5})

	off, err := h.Service().Offsets(ctx, "orders", "workers")
	require.NoError(t, err)
	require.Equal(t, 4, off.ShardCount)
	require.Len(t, off.Shards, 4)
	for i, s := range off.Shards {
		require.Equal(t, i, s.ShardIndex)
		require.Equal(t, protocol.StreamKey("orders", i), s.StreamKey)
		require.Equal(t, "m1", s.Owner, "shard %d", i)
		require.Equal(t, "m1", s.TargetOwner, "shard %d", i)
		require.True(t, s.Exists)
		require.True(t, s.GroupExists, "the group's Redis consumer group is on every shard")
	}
	s0 := off.Shards[0]
	require.Equal(t, int64(2), s0.Length)
	require.Equal(t, int64(1), s0.Pending)
	require.Equal(t, int64(0), s0.Lag)
	require.Equal(t, protocol.ShardConsumers{Count: 1, Names: []protocol.ShardConsumer{{Name: "m1", Pending: 1, IdleMs: 5}}}, s0.Consumers)
	require.Positive(t, s0.MemoryUsage)

	prov.SetError(persistence.ErrUnavailable)
	_, err = h.Service().Offsets(ctx, "orders", "workers")
	require.ErrorIs(t, err, coordinator.ErrUnavailable)
}

func TestMessagesPagesAndBounds(t *testing.T) {
	h, prov := newBrowseHost(t)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		prov.AddEntries("orders", 2, persistence.StreamEntry{Fields: map[string]string{"n": string(rune('a' + i))}})
	}
	page, err := h.Service().Messages(ctx, "orders", 2, "-", 2)
	require.NoError(t, err)
	require.Equal(t, "orders:2", page.StreamKey)
	require.Equal(t, []protocol.StreamMessage{{ID: "1-0", Fields: map[string]string{"n": "a"}}, {ID: "2-0", Fields: map[string]string{"n": "b"}}}, page.Messages)
	require.Equal(t, "2-0", *page.NextCursor)
	var ids []string
	cursor := "-"
	for {
		page, err := h.Service().Messages(ctx, "orders", 2, cursor, 2)
		require.NoError(t, err)
		for _, m := range page.Messages {
			ids = append(ids, m.ID)
		}
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
	}
	require.Equal(t, []string{"1-0", "2-0", "3-0", "4-0", "5-0"}, ids)

	page, err = h.Service().Messages(ctx, "orders", 1, "-", 10)
	require.NoError(t, err)
	require.Empty(t, page.Messages)
	require.Nil(t, page.NextCursor)

	_, err = h.Service().Messages(ctx, "orders", 4, "-", 10)
	require.ErrorIs(t, err, coordinator.ErrShardNotFound)
	require.Contains(t, err.Error(), "shardCount 4")
	_, err = h.Service().Messages(ctx, "nope", 0, "-", 10)
	require.ErrorIs(t, err, coordinator.ErrStreamNotFound)
	_, err = h.Service().Messages(ctx, "orders", 0, "x", 10)
	require.ErrorIs(t, err, coordinator.ErrInvalidArgument)

	// A key beyond the count that the stream does not drain is not the
	// stream's: not read, whatever it holds (TestMessagesReadsDrainingShards).
	prov.AddEntries("orders", 6, persistence.StreamEntry{Fields: map[string]string{"foreign": "1"}})
	_, err = h.Service().Messages(ctx, "orders", 6, "-", 10)
	require.ErrorIs(t, err, coordinator.ErrShardNotFound)
	require.Contains(t, err.Error(), "shards 0..3")
}
