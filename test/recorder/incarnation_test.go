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

// The case of chaos seed 20261129: a scale-in retires shard 10's stream while
// m3 still holds it (groups revoke a removed shard only once it is retired),
// so m3's SHARD_REVOKING and SHARD_RELEASED come after the retirement, when
// the time alone reads as the next incarnation's. They must carry the label
// of the hold they close — the one of the entries m3 handled in it — or a
// check that follows starts and releases sees shard 10's first incarnation
// held for ever.
func TestRelabelReleaseAfterRetirement(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	rdb := srv.Client()
	add := func(key string) string {
		return rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: map[string]any{"seq": 1}}).Val()
	}
	incarnation := func(retired string) string { // one entry, then retired (or left live)
		require.NoError(t, rdb.XGroupCreateMkStream(ctx, "orders:10", "workers", "0").Err())
		id := add("orders:10")
		time.Sleep(2 * time.Millisecond)
		if retired != "" {
			require.NoError(t, rdb.Rename(ctx, "orders:10", retired).Err())
		}
		return id
	}
	first := incarnation("{orders:10}:retired:r1")
	second := incarnation("{orders:10}:retired:r3")
	live := incarnation("")

	base := time.Date(2026, 11, 29, 2, 28, 0, 0, time.UTC)
	at := func(s float64) int64 { return base.Add(time.Duration(s * float64(time.Second))).UnixNano() }
	rfc := func(s float64) string { return time.Unix(0, at(s)).UTC().Format(time.RFC3339Nano) }
	migs := []protocol.Migration{
		{ReshardingID: "r1", CreatedAt: rfc(30), UpdatedAt: rfc(43.5),
			Shards: []protocol.MigrationShard{{ShardIndex: 10, Change: "REMOVE", State: "RETIRED", RetiredKey: "{orders:10}:retired:r1"}}},
		{ReshardingID: "r2", CreatedAt: rfc(45), UpdatedAt: rfc(45.2),
			Shards: []protocol.MigrationShard{{ShardIndex: 10, Change: "ADD", State: "PROVISIONED"}}},
		{ReshardingID: "r3", CreatedAt: rfc(46), UpdatedAt: rfc(50),
			Shards: []protocol.MigrationShard{{ShardIndex: 10, Change: "REMOVE", State: "RETIRED", RetiredKey: "{orders:10}:retired:r3"}}},
	}
	inc, err := ReadIncarnations(ctx, rdb, "orders", migs)
	require.NoError(t, err)
	firstLabel, secondLabel := 10+IncarnationStride, 10+2*IncarnationStride

	raw := []Line{
		{Kind: "event", Event: "SHARD_STARTED", Member: "m3", Shard: 10, Epoch: 12, At: at(33.781)},
		{Kind: "handled", Member: "m3", Shard: 10, Epoch: 12, EntryID: first, Seq: 1, At: at(40)},
		{Kind: "acked", Member: "m3", Shard: 10, Epoch: 12, EntryID: first, At: at(40.1), Token: 3},
		{Kind: "event", Event: "ASSIGNMENT", Member: "m3", Shard: -1, Epoch: 17, At: at(44.766)},
		{Kind: "event", Event: "SHARD_REVOKING", Member: "m3", Shard: 10, Epoch: 17, At: at(44.77)},
		{Kind: "event", Event: "SHARD_RELEASED", Member: "m3", Shard: 10, Epoch: 17, At: at(44.78)},
		// m4 holds the second incarnation without handling anything, and
		// its release, too, comes after that incarnation was retired.
		{Kind: "event", Event: "SHARD_STARTED", Member: "m4", Shard: 10, Epoch: 18, At: at(45.5)},
		{Kind: "event", Event: "SHARD_RELEASED", Member: "m4", Shard: 10, Epoch: 19, At: at(51)},
		// m3 again, on the live incarnation; its process is killed while
		// it holds the shard (no release), and a new one starts it again.
		{Kind: "event", Event: "SHARD_STARTED", Member: "m3", Shard: 10, Epoch: 20, At: at(52)},
		{Kind: "handled", Member: "m3", Shard: 10, Epoch: 20, EntryID: live, Seq: 3, At: at(53)},
		{Kind: "event", Event: "SHARD_STARTED", Member: "m3", Shard: 10, Epoch: 22, At: at(60)},
	}
	require.Equal(t, secondLabel, inc.Label(10, "", at(44.78)), "by its time alone, the release reads as the next incarnation's")
	require.Equal(t, secondLabel, inc.Label(10, second, 0))

	got := inc.Relabel(raw)
	labels := make([]int, len(got))
	for i, l := range got {
		labels[i] = l.Shard
	}
	require.Equal(t, []int{firstLabel, firstLabel, firstLabel, -1, firstLabel, firstLabel,
		secondLabel, secondLabel, 10, 10, 10}, labels)
	require.Equal(t, raw[4].Shard, 10, "Relabel leaves its input alone")
}
