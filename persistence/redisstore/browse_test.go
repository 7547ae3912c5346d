package redisstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

func TestBrowseRedisServer(t *testing.T) {
	runBrowseTests(t, func(t *testing.T) redis.UniversalClient { return redistest.Start(t).Client() }, true)
}

func TestBrowseMiniredis(t *testing.T) {
	runBrowseTests(t, func(t *testing.T) redis.UniversalClient {
		mr := miniredis.RunT(t)
		c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
		t.Cleanup(func() { _ = c.Close() })
		return c
	}, false)
}

func runBrowseTests(t *testing.T, newClient func(t *testing.T) redis.UniversalClient, realRedis bool) {
	ctx := context.Background()

	t.Run("ShardOffsets", func(t *testing.T) {
		c := newClient(t)
		p := redisstore.NewProvisioner(c)
		require.NoError(t, p.EnsureStreams(ctx, "o", 0, 3))
		require.NoError(t, p.EnsureGroup(ctx, "o", "g", 0, 2)) // not on shard 2
		for i := 0; i < 5; i++ {
			require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "o:0", ID: fmt.Sprintf("%d-1", i+1), Values: []any{"k", i}}).Err())
		}
		// consumer c1 reads 3 (pending 3), acks 1; c2 reads 1.
		res, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c1", Streams: []string{"o:0", ">"}, Count: 3}).Result()
		require.NoError(t, err)
		require.NoError(t, c.XAck(ctx, "o:0", "g", res[0].Messages[0].ID).Err())
		_, err = c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c2", Streams: []string{"o:0", ">"}, Count: 1}).Result()
		require.NoError(t, err)

		got, err := p.ShardOffsets(ctx, "o", "g", []int{0, 1, 2, 7})
		require.NoError(t, err)
		require.Len(t, got, 4)

		s0 := got[0]
		require.Equal(t, 0, s0.Shard)
		require.Equal(t, "o:0", s0.StreamKey)
		require.True(t, s0.Exists)
		require.True(t, s0.GroupExists)
		require.Equal(t, int64(5), s0.Length)
		require.Equal(t, "5-1", s0.LastGeneratedID)
		require.Equal(t, int64(3), s0.Pending)
		require.Equal(t, "4-1", s0.LastDeliveredID)
		require.Len(t, s0.Consumers, 2)
		require.Equal(t, "c1", s0.Consumers[0].Name)
		require.Equal(t, int64(2), s0.Consumers[0].Pending)
		require.Equal(t, "c2", s0.Consumers[1].Name)
		require.Equal(t, int64(1), s0.Consumers[1].Pending)
		if realRedis {
			require.GreaterOrEqual(t, s0.Consumers[0].IdleMs, int64(0))
			require.Equal(t, int64(4), s0.EntriesRead)
			require.Equal(t, int64(1), s0.Lag)
			require.Positive(t, s0.MemoryUsage)
		}

		s1 := got[1]
		require.True(t, s1.Exists)
		require.True(t, s1.GroupExists)
		require.Zero(t, s1.Length)
		require.Empty(t, s1.Consumers)
		require.NotNil(t, s1.Consumers)
		if realRedis {
			require.Equal(t, int64(0), s1.Lag)
		}

		s2 := got[2]
		require.True(t, s2.Exists)
		require.False(t, s2.GroupExists, "the group is not on shard 2")
		require.Equal(t, int64(-1), s2.Lag)
		require.Empty(t, s2.Consumers)

		s7 := got[3]
		require.Equal(t, 7, s7.Shard)
		require.False(t, s7.Exists)
		require.Equal(t, int64(-1), s7.Lag)
		require.Equal(t, int64(-1), s7.MemoryUsage)

		_, err = p.ShardOffsets(ctx, "o", "g", []int{-1})
		require.Error(t, err)
	})

	t.Run("ShardOffsetsManyShards", func(t *testing.T) {
		// More shards than one pipeline batch: order and count preserved.
		c := newClient(t)
		p := redisstore.NewProvisioner(c)
		require.NoError(t, p.EnsureStreams(ctx, "big", 0, 150))
		require.NoError(t, p.EnsureGroup(ctx, "big", "g", 0, 150))
		shards := make([]int, 150)
		for i := range shards {
			shards[i] = 149 - i
		}
		got, err := p.ShardOffsets(ctx, "big", "g", shards)
		require.NoError(t, err)
		require.Len(t, got, 150)
		for i, o := range got {
			require.Equal(t, 149-i, o.Shard)
			require.True(t, o.GroupExists)
		}
	})

	t.Run("ReadShardPaging", func(t *testing.T) {
		c := newClient(t)
		p := redisstore.NewProvisioner(c)
		require.NoError(t, p.EnsureStreams(ctx, "m", 0, 1))
		ids := []string{"5-0", "5-1", "7-0", "8-3", "9-0"}
		for i, id := range ids {
			require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "m:0", ID: id, Values: []any{"n", i, "key", "k" + id}}).Err())
		}
		var seen []string
		cursor := "-"
		for page := 0; ; page++ {
			require.Less(t, page, 10)
			es, more, err := p.ReadShard(ctx, "m", 0, cursor, 2)
			require.NoError(t, err)
			for _, e := range es {
				seen = append(seen, e.ID)
				require.Equal(t, "k"+e.ID, e.Fields["key"])
			}
			if !more {
				break
			}
			require.Len(t, es, 2)
			cursor = es[len(es)-1].ID
		}
		require.Equal(t, ids, seen)

		// Exclusive cursor; "ms" alone means "ms-0".
		es, more, err := p.ReadShard(ctx, "m", 0, "5-0", 10)
		require.NoError(t, err)
		require.False(t, more)
		require.Equal(t, "5-1", es[0].ID)
		es, _, err = p.ReadShard(ctx, "m", 0, "5", 1)
		require.NoError(t, err)
		require.Equal(t, "5-1", es[0].ID)
		// Exactly count left: more is false.
		es, more, err = p.ReadShard(ctx, "m", 0, "7-0", 2)
		require.NoError(t, err)
		require.Len(t, es, 2)
		require.False(t, more)
		// Past the end, the largest id, a missing stream: empty.
		es, more, err = p.ReadShard(ctx, "m", 0, "9-0", 5)
		require.NoError(t, err)
		require.Empty(t, es)
		require.False(t, more)
		es, _, err = p.ReadShard(ctx, "m", 0, "18446744073709551615-18446744073709551615", 5)
		require.NoError(t, err)
		require.Empty(t, es)
		es, _, err = p.ReadShard(ctx, "m", 3, "-", 5)
		require.NoError(t, err)
		require.Empty(t, es)

		for _, bad := range []string{"", "+", "(5-0", "5-", "-5", "a-1", "5-0-1", "18446744073709551616"} {
			_, _, err := p.ReadShard(ctx, "m", 0, bad, 5)
			require.ErrorIs(t, err, persistence.ErrInvalidStreamID, bad)
		}
		_, _, err = p.ReadShard(ctx, "m", 0, "-", 0)
		require.Error(t, err)
	})
	// A shard key someone wrote a string (or a hash) to: ErrWrongKeyType,
	// for reading it and for its offsets, not an unclassified error.
	t.Run("WrongKeyType", func(t *testing.T) {
		c := newClient(t)
		p := redisstore.NewProvisioner(c)
		require.NoError(t, c.Set(ctx, "w:0", "not a stream", 0).Err())
		require.NoError(t, c.HSet(ctx, "w:1", "f", "v").Err())
		for _, shard := range []int{0, 1} {
			_, _, err := p.ReadShard(ctx, "w", shard, "-", 5)
			require.ErrorIs(t, err, persistence.ErrWrongKeyType, "shard %d", shard)
			_, err = p.ShardOffsets(ctx, "w", "g", []int{shard})
			require.ErrorIs(t, err, persistence.ErrWrongKeyType, "shard %d", shard)
		}
	})
}
