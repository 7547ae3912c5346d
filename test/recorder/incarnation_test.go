package recorder

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// Shard 1 is retired, created again, and acknowledged on by another member
// with a fence token that started again: relabelled, the two incarnations
// are checked apart (no fence overlap), and an entry handled but never
// seen acknowledged is settled from the retired key.
func TestIncarnationsSeparateRetiredStreams(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	rdb := srv.Client()
	add := func(key string) string {
		return rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: map[string]any{"seq": 1}}).Val()
	}
	require.NoError(t, rdb.XGroupCreateMkStream(ctx, "orders:1", "workers", "0").Err())
	old1, old2 := add("orders:1"), add("orders:1")
	require.NoError(t, rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "workers", Consumer: "a", Streams: []string{"orders:1", ">"}}).Err())
	require.NoError(t, rdb.XAck(ctx, "orders:1", "workers", old1, old2).Err())
	require.NoError(t, rdb.Rename(ctx, "orders:1", "{orders:1}:retired:r1").Err())
	time.Sleep(2 * time.Millisecond)
	require.NoError(t, rdb.XGroupCreateMkStream(ctx, "orders:1", "workers", "0").Err())
	new1 := add("orders:1")

	migs := []protocol.Migration{
		{ReshardingID: "r2", CreatedAt: "2026-01-01T00:00:02Z", UpdatedAt: "2026-01-01T00:00:03Z",
			Shards: []protocol.MigrationShard{{ShardIndex: 1, Change: "ADD", State: "PROVISIONED"}}},
		{ReshardingID: "r1", CreatedAt: "2026-01-01T00:00:00Z", UpdatedAt: "2026-01-01T00:00:01Z",
			Shards: []protocol.MigrationShard{{ShardIndex: 1, Change: "REMOVE", State: "RETIRED", RetiredKey: "{orders:1}:retired:r1"}}},
	}
	inc, err := ReadIncarnations(ctx, rdb, "orders", migs)
	require.NoError(t, err)
	require.Equal(t, 1+IncarnationStride, inc.Label(1, old2, 0))
	require.Equal(t, 1, inc.Label(1, new1, 0))
	require.Equal(t, 0, inc.Label(0, old1, 0), "a shard never retired keeps its index")
	require.Equal(t, "{orders:1}:retired:r1", inc.Key(1+IncarnationStride))
	require.Equal(t, "orders:1", inc.Key(1))

	raw := []Line{
		{Kind: "handled", Member: "a", Shard: 1, Epoch: 1, EntryID: old1, Seq: 1, At: 10},
		{Kind: "acked", Member: "a", Shard: 1, Epoch: 1, EntryID: old1, At: 11, Token: 9},
		{Kind: "handled", Member: "a", Shard: 1, Epoch: 1, EntryID: old2, Seq: 2, At: 12}, // its ack was never seen
		{Kind: "handled", Member: "b", Shard: 1, Epoch: 4, EntryID: new1, Seq: 3, At: 20},
		{Kind: "acked", Member: "b", Shard: 1, Epoch: 4, EntryID: new1, At: 21, Token: 1},
	}
	require.NotEmpty(t, FromLines(raw).Check(3).FenceOverlaps, "without relabelling the new incarnation's token 1 reads as a step back")

	r := FromLines(inc.Relabel(raw))
	n, err := r.SettleIncarnations(ctx, rdb, inc, "workers")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	rep := r.Check(3)
	require.Empty(t, rep.FenceOverlaps)
	require.Empty(t, rep.Overlaps)
	require.Zero(t, rep.Lost)
}
