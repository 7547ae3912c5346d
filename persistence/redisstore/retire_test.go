package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

// A shard retires only when every consumer group on it has nothing pending
// and nothing undelivered; the rename is atomic with the check, keeps the
// data under the retired key for the retention, and a later XADD NOMKSTREAM
// to the old key is refused.
func TestRetireShardRedisServer(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	p := redisstore.NewProvisioner(c)
	require.NoError(t, p.EnsureStreams(ctx, "orders", 0, 2))
	require.NoError(t, p.EnsureGroup(ctx, "orders", "billing", 0, 2))
	require.NoError(t, p.EnsureGroup(ctx, "orders", "audit", 0, 2))
	key := redisstore.ShardKey("orders", 1)
	for i := 0; i < 3; i++ {
		require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: key, NoMkStream: true, Values: []any{"n", i}}).Err())
	}
	retired := "{orders:1}:retired:rs-1"

	// Undelivered entries block both groups.
	r, err := p.RetireShard(ctx, "orders", 1, retired, time.Hour)
	require.NoError(t, err)
	require.False(t, r.Retired)
	require.Len(t, r.Blocked, 2)
	for _, b := range r.Blocked {
		require.EqualValues(t, 3, b.Lag, b.Group)
	}

	// billing reads everything (pending 3), audit reads and acknowledges all.
	got, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "billing", Consumer: "m1", Streams: []string{key, ">"}, Count: 10}).Result()
	require.NoError(t, err)
	ids := []string{}
	for _, m := range got[0].Messages {
		ids = append(ids, m.ID)
	}
	got, err = c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "audit", Consumer: "m2", Streams: []string{key, ">"}, Count: 10}).Result()
	require.NoError(t, err)
	require.Len(t, got[0].Messages, 3)
	require.NoError(t, c.XAck(ctx, key, "audit", ids...).Err())
	r, err = p.RetireShard(ctx, "orders", 1, retired, time.Hour)
	require.NoError(t, err)
	require.False(t, r.Retired)
	require.Len(t, r.Blocked, 1)
	require.Equal(t, "billing", r.Blocked[0].Group)
	require.EqualValues(t, 3, r.Blocked[0].Pending)
	require.EqualValues(t, 0, r.Blocked[0].Lag)

	require.NoError(t, c.XAck(ctx, key, "billing", ids...).Err())
	r, err = p.RetireShard(ctx, "orders", 1, retired, time.Hour)
	require.NoError(t, err)
	require.True(t, r.Retired)
	require.False(t, r.Missing)

	require.Zero(t, c.Exists(ctx, key).Val())
	n, err := c.XLen(ctx, retired).Result()
	require.NoError(t, err)
	require.EqualValues(t, 3, n, "the retired key keeps the data")
	ttl := c.PTTL(ctx, retired).Val()
	require.Greater(t, ttl, 59*time.Minute)
	err = c.XAdd(ctx, &redis.XAddArgs{Stream: key, NoMkStream: true, Values: []any{"late", 1}}).Err()
	require.ErrorIs(t, err, redis.Nil, "a late producer must be refused")

	// Retiring again is a no-op; a shard never created is Missing.
	r, err = p.RetireShard(ctx, "orders", 1, retired, time.Hour)
	require.NoError(t, err)
	require.True(t, r.Retired)
	require.False(t, r.Missing)
	r, err = p.RetireShard(ctx, "orders", 7, "{orders:7}:retired:rs-1", time.Hour)
	require.NoError(t, err)
	require.True(t, r.Missing)

	// Shard 0: an entry deleted after delivery makes Redis report a null lag;
	// the ids still tell that everything was delivered.
	key0 := redisstore.ShardKey("orders", 0)
	id1 := c.XAdd(ctx, &redis.XAddArgs{Stream: key0, Values: []any{"n", 1}}).Val()
	c.XAdd(ctx, &redis.XAddArgs{Stream: key0, Values: []any{"n", 2}})
	require.NoError(t, c.XDel(ctx, key0, id1).Err())
	for _, g := range []string{"billing", "audit"} {
		got, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: g, Consumer: "m", Streams: []string{key0, ">"}, Count: 10}).Result()
		require.NoError(t, err)
		for _, m := range got[0].Messages {
			require.NoError(t, c.XAck(ctx, key0, g, m.ID).Err())
		}
	}
	c.XAdd(ctx, &redis.XAddArgs{Stream: key0, Values: []any{"n", 3}}) // undelivered
	r, err = p.RetireShard(ctx, "orders", 0, "{orders:0}:retired:rs-1", time.Hour)
	require.NoError(t, err)
	require.False(t, r.Retired, "an undelivered entry behind a null lag must block")
	for _, g := range []string{"billing", "audit"} {
		got, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: g, Consumer: "m", Streams: []string{key0, ">"}, Count: 10}).Result()
		require.NoError(t, err)
		for _, m := range got[0].Messages {
			require.NoError(t, c.XAck(ctx, key0, g, m.ID).Err())
		}
	}
	r, err = p.RetireShard(ctx, "orders", 0, "{orders:0}:retired:rs-1", time.Hour)
	require.NoError(t, err)
	require.True(t, r.Retired, "blocked: %+v", r.Blocked)
}

// After a failover a group can report a lag above 0 although it has read
// everything: Redis 7.0 does not replicate a group's entries-read counter
// with XREADGROUP, so a promoted replica counts from an older value. The ids
// tell the truth (last-delivered-id at the stream's last-generated-id), and
// the shard retires; a scale-in that met a failover would wait forever
// otherwise. XGROUP SETID ... ENTRIESREAD sets the same stale counter here.
func TestRetireShardWithStaleLagAfterFailoverRedisServer(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	p := redisstore.NewProvisioner(c)
	require.NoError(t, p.EnsureStreams(ctx, "orders", 0, 1))
	require.NoError(t, p.EnsureGroup(ctx, "orders", "billing", 0, 1))
	key := redisstore.ShardKey("orders", 0)
	for i := 0; i < 5; i++ {
		require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: key, NoMkStream: true, Values: []any{"n", i}}).Err())
	}
	got, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "billing", Consumer: "m1", Streams: []string{key, ">"}, Count: 10}).Result()
	require.NoError(t, err)
	last := got[0].Messages[4].ID
	for _, m := range got[0].Messages {
		require.NoError(t, c.XAck(ctx, key, "billing", m.ID).Err())
	}
	require.NoError(t, c.Do(ctx, "XGROUP", "SETID", key, "billing", last, "ENTRIESREAD", 2).Err())
	groups, err := c.XInfoGroups(ctx, key).Result()
	require.NoError(t, err)
	require.EqualValues(t, 3, groups[0].Lag, "the stale counter this test is about")

	info, err := p.ShardInfo(ctx, "orders", "billing", 0)
	require.NoError(t, err)
	require.EqualValues(t, 0, info.Lag, "everything was delivered: the reported lag is 0")

	r, err := p.RetireShard(ctx, "orders", 0, "{orders:0}:retired:rs-1", time.Hour)
	require.NoError(t, err)
	require.True(t, r.Retired, "blocked: %+v", r.Blocked)
}

func TestSeedAndDeleteFencesRedisServer(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	p := redisstore.NewProvisioner(c)
	require.NoError(t, p.SetFences(ctx, "orders", "g", nil))
	require.NoError(t, p.SeedFences(ctx, "orders", "g", []int{0, 1}, 5<<32))
	f, err := p.GetFences(ctx, "orders", "g", []int{0, 1})
	require.NoError(t, err)
	require.EqualValues(t, 5<<32, f[0].Token)
	require.Equal(t, "", f[0].Owner)
	// A seeded fence moves on from its base; seeding never lowers a fence.
	require.NoError(t, p.SeedFences(ctx, "orders", "g", []int{0}, 9<<32))
	f, _ = p.GetFences(ctx, "orders", "g", []int{0})
	require.EqualValues(t, 5<<32, f[0].Token)
	require.NoError(t, p.DeleteFences(ctx, "orders", "g", []int{0, 1}))
	require.Zero(t, c.Exists(ctx, protocol.FenceKey("orders:0", "g"), protocol.FenceKey("orders:1", "g")).Val())
}

// One node holds a stream's driver lease at a time; the holder renews it;
// another node takes it once it expired or was released.
func TestDriverLeaseRedisServer(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	s, err := redisstore.New(c, redisstore.Options{})
	require.NoError(t, err)
	ok, err := s.AcquireDriver(ctx, "orders", "n1", 300*time.Millisecond)
	require.NoError(t, err)
	require.True(t, ok)
	ok, _ = s.AcquireDriver(ctx, "orders", "n2", time.Second)
	require.False(t, ok, "a held lease must not be taken")
	ok, _ = s.AcquireDriver(ctx, "orders", "n1", 300*time.Millisecond)
	require.True(t, ok, "the holder renews")
	require.Eventually(t, func() bool {
		ok, _ := s.AcquireDriver(ctx, "orders", "n2", time.Second)
		return ok
	}, 5*time.Second, 50*time.Millisecond)
	require.NoError(t, s.ReleaseDriver(ctx, "orders", "n1"), "releasing a lease held by another is a no-op")
	ok, _ = s.AcquireDriver(ctx, "orders", "n1", time.Second)
	require.False(t, ok)
	require.NoError(t, s.ReleaseDriver(ctx, "orders", "n2"))
	ok, _ = s.AcquireDriver(ctx, "orders", "n1", time.Second)
	require.True(t, ok)

	require.NoError(t, s.MarkResharding(ctx, "b"))
	require.NoError(t, s.MarkResharding(ctx, "a"))
	got, err := s.ReshardingStreams(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, got)
	require.NoError(t, s.UnmarkResharding(ctx, "a"))
	got, _ = s.ReshardingStreams(ctx)
	require.Equal(t, []string{"b"}, got)
}

// A group created while a scale-in drains never re-creates a retired shard.
func TestEnsureGroupOnExistingCreatesNoStreamRedisServer(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	p := redisstore.NewProvisioner(c)
	require.NoError(t, p.EnsureStreams(ctx, "orders", 0, 1))
	require.NoError(t, p.EnsureGroupOnExisting(ctx, "orders", "late", 0, 3))
	groups, err := c.XInfoGroups(ctx, "orders:0").Result()
	require.NoError(t, err)
	require.Len(t, groups, 1)
	require.Zero(t, c.Exists(ctx, "orders:1", "orders:2").Val(), "a missing shard stream must stay missing")
	require.NoError(t, p.EnsureGroupOnExisting(ctx, "orders", "late", 0, 1), "an existing group is success")
}
