package redisstore_test

import (
	"context"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

func TestProvisionerRedisServer(t *testing.T) {
	runProvisionerTests(t, func(t *testing.T) redis.UniversalClient { return redistest.Start(t).Client() }, true)
}

func TestProvisionerMiniredis(t *testing.T) {
	runProvisionerTests(t, func(t *testing.T) redis.UniversalClient {
		mr := miniredis.RunT(t)
		c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
		t.Cleanup(func() { _ = c.Close() })
		return c
	}, false)
}

func runProvisionerTests(t *testing.T, newClient func(t *testing.T) redis.UniversalClient, realRedis bool) {
	ctx := context.Background()

	t.Run("EnsureStreamsThenNoMkStream", func(t *testing.T) {
		c := newClient(t)
		p := redisstore.NewProvisioner(c)
		// Without provisioning, XADD NOMKSTREAM fails (producers rely on this).
		err := c.XAdd(ctx, &redis.XAddArgs{Stream: "orders:0", NoMkStream: true, Values: []any{"k", "v"}}).Err()
		require.ErrorIs(t, err, redis.Nil)

		require.NoError(t, p.EnsureStreams(ctx, "orders", 0, 4))
		for i := 0; i < 4; i++ {
			key := redisstore.ShardKey("orders", i)
			n, err := c.XLen(ctx, key).Result()
			require.NoError(t, err)
			require.Zero(t, n)
			groups, err := c.XInfoGroups(ctx, key).Result()
			require.NoError(t, err)
			require.Empty(t, groups, "the provisioning group must not stay")
			require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: key, NoMkStream: true, Values: []any{"k", "v"}}).Err())
		}
		n, err := c.Exists(ctx, "orders:4").Result()
		require.NoError(t, err)
		require.Zero(t, n, "shard outside the range created")

		// Idempotent, no data lost.
		require.NoError(t, p.EnsureStreams(ctx, "orders", 0, 6))
		l, err := c.XLen(ctx, "orders:0").Result()
		require.NoError(t, err)
		require.Equal(t, int64(1), l)
		require.NoError(t, p.EnsureStreams(ctx, "orders", 2, 2))
		require.Error(t, p.EnsureStreams(ctx, "orders", 3, 2))
	})

	t.Run("EnsureGroupReadsFromStart", func(t *testing.T) {
		c := newClient(t)
		p := redisstore.NewProvisioner(c)
		require.NoError(t, p.EnsureStreams(ctx, "orders", 0, 2))
		for i := 0; i < 3; i++ {
			require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "orders:1", NoMkStream: true, Values: []any{"n", i}}).Err())
		}
		require.NoError(t, p.EnsureGroup(ctx, "orders", "billing", 0, 3)) // shard 2 created by MKSTREAM
		require.NoError(t, p.EnsureGroup(ctx, "orders", "billing", 0, 3)) // BUSYGROUP is success

		res, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "billing", Consumer: "c1",
			Streams: []string{"orders:1", ">"}, Count: 10}).Result()
		require.NoError(t, err)
		require.Len(t, res, 1)
		require.Len(t, res[0].Messages, 3, "entries produced before the group existed must be delivered")

		// An existing group is left untouched (not reset to 0).
		require.NoError(t, p.EnsureGroup(ctx, "orders", "billing", 1, 2))
		_, err = c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "billing", Consumer: "c1",
			Streams: []string{"orders:1", ">"}, Count: 10, Block: -1}).Result()
		require.ErrorIs(t, err, redis.Nil)
		n, err := c.Exists(ctx, "orders:2").Result()
		require.NoError(t, err)
		require.Equal(t, int64(1), n)
	})

	t.Run("ShardInfo", func(t *testing.T) {
		c := newClient(t)
		p := redisstore.NewProvisioner(c)

		info, err := p.ShardInfo(ctx, "orders", "billing", 0)
		require.NoError(t, err)
		require.Equal(t, persistence.ShardInfo{Shard: 0, StreamKey: "orders:0", Lag: -1, EntriesRead: -1}, info)

		require.NoError(t, p.EnsureStreams(ctx, "orders", 0, 1))
		info, err = p.ShardInfo(ctx, "orders", "billing", 0)
		require.NoError(t, err)
		require.True(t, info.Exists)
		require.False(t, info.GroupExists)
		require.Equal(t, int64(-1), info.Lag)

		for i := 0; i < 5; i++ {
			require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "orders:0", Values: []any{"n", i}}).Err())
		}
		require.NoError(t, p.EnsureGroup(ctx, "orders", "billing", 0, 1))
		info, err = p.ShardInfo(ctx, "orders", "billing", 0)
		require.NoError(t, err)
		require.True(t, info.GroupExists)
		require.Equal(t, int64(5), info.Length)
		require.Zero(t, info.Pending)
		if realRedis {
			require.Equal(t, int64(5), info.Lag)
		}

		res, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "billing", Consumer: "c1",
			Streams: []string{"orders:0", ">"}, Count: 3}).Result()
		require.NoError(t, err)
		msgs := res[0].Messages
		require.NoError(t, c.XAck(ctx, "orders:0", "billing", msgs[0].ID).Err())
		info, err = p.ShardInfo(ctx, "orders", "billing", 0)
		require.NoError(t, err)
		require.Equal(t, int64(2), info.Pending)
		require.Equal(t, msgs[2].ID, info.LastDeliveredID)
		if realRedis {
			require.Equal(t, int64(2), info.Lag)
			require.Equal(t, int64(3), info.EntriesRead)
		}
		xs, err := c.XInfoStream(ctx, "orders:0").Result()
		require.NoError(t, err)
		require.Equal(t, xs.LastGeneratedID, info.LastGeneratedID)

		// Drained: pending 0 and a known lag 0 (the retirement condition of SPEC §7).
		res, err = c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "billing", Consumer: "c1",
			Streams: []string{"orders:0", ">"}, Count: 10}).Result()
		require.NoError(t, err)
		ids := []string{msgs[1].ID, msgs[2].ID}
		for _, m := range res[0].Messages {
			ids = append(ids, m.ID)
		}
		require.NoError(t, c.XAck(ctx, "orders:0", "billing", ids...).Err())
		info, err = p.ShardInfo(ctx, "orders", "billing", 0)
		require.NoError(t, err)
		require.Zero(t, info.Pending)
		if realRedis {
			require.Equal(t, int64(0), info.Lag)
		}
	})

	t.Run("CanceledContext", func(t *testing.T) {
		p := redisstore.NewProvisioner(newClient(t))
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		require.ErrorIs(t, p.EnsureStreams(cctx, "o", 0, 1), persistence.ErrUnavailable)
		require.ErrorIs(t, p.EnsureGroup(cctx, "o", "g", 0, 1), persistence.ErrUnavailable)
		_, err := p.ShardInfo(cctx, "o", "g", 0)
		require.ErrorIs(t, err, persistence.ErrUnavailable)
	})
}
