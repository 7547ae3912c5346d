package redisstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

// StreamGroups reads every group of every shard with one XINFO GROUPS per
// shard, pipelined, and reports a missing shard as no groups.
func TestStreamGroupsOneCallPerShard(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	c := srv.Client()
	p := redisstore.NewProvisioner(c)
	const shards = 70 // more than one pipeline batch
	require.NoError(t, p.EnsureGroup(ctx, "s", "a", 0, shards))
	require.NoError(t, p.EnsureGroup(ctx, "s", "b", 0, shards))
	for i := 0; i < 3; i++ {
		require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "s:1", Values: []any{"k", "v"}}).Err())
	}
	require.NoError(t, c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "a", Consumer: "m", Streams: []string{"s:1", ">"}, Count: 2}).Err())
	require.NoError(t, c.Del(ctx, "s:69").Err())

	srv.ResetStats()
	got, err := p.StreamGroups(ctx, "s", shards)
	require.NoError(t, err)
	require.Equal(t, int64(shards), srv.CommandCalls()["xinfo|groups"])
	require.Len(t, got, shards)
	require.Equal(t, redisstore.GroupSample{Pending: 2, Lag: 1}, got[1]["a"])
	require.Equal(t, redisstore.GroupSample{Pending: 0, Lag: 3}, got[1]["b"])
	require.Equal(t, redisstore.GroupSample{Pending: 0, Lag: 0}, got[0]["a"])
	require.Nil(t, got[69], "a missing shard lists no group")
}

// groupLag is XINFO GROUPS' lag of group on key (-1: null, Redis cannot tell).
func groupLag(t *testing.T, c redis.Cmdable, key, group string) int64 {
	t.Helper()
	groups, err := c.XInfoGroups(context.Background(), key).Result()
	require.NoError(t, err)
	for _, g := range groups {
		if g.Name == group {
			return g.Lag
		}
	}
	t.Fatalf("%s has no group %s", key, group)
	return 0
}

// RecountLag repairs a group's entries-read counter left behind its
// position (what a promoted replica can hold: a lag that never comes back
// down) and an unknown one, leaves exact counters alone and never moves a
// group; a missing shard is nothing to do.
func TestRecountLagRepairsAStaleCounterRedisServer(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	p := redisstore.NewProvisioner(c)
	const shards = 3
	for _, g := range []string{"stale", "behind", "unknown"} {
		require.NoError(t, p.EnsureGroup(ctx, "orders", g, 0, shards))
	}
	key := redisstore.ShardKey("orders", 0)
	for i := 0; i < 10; i++ {
		require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: key, NoMkStream: true, Values: []any{"n", i}}).Err())
	}
	read := func(group string, n int64) string {
		got, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: "m1", Streams: []string{key, ">"}, Count: n}).Result()
		require.NoError(t, err)
		return got[0].Messages[len(got[0].Messages)-1].ID
	}
	last := read("stale", 10)
	require.NoError(t, c.Do(ctx, "XGROUP", "SETID", key, "stale", last, "ENTRIESREAD", 3).Err())
	require.EqualValues(t, 7, groupLag(t, c, key, "stale"), "the stale counter this test is about")
	read("behind", 4)
	require.EqualValues(t, 6, groupLag(t, c, key, "behind"))
	mid := read("unknown", 6)
	require.NoError(t, c.Do(ctx, "XGROUP", "SETID", key, "unknown", mid).Err())
	require.EqualValues(t, -1, groupLag(t, c, key, "unknown"), "SETID without ENTRIESREAD: Redis cannot tell")
	require.NoError(t, c.Del(ctx, redisstore.ShardKey("orders", 2)).Err())
	pendingBefore, err := c.XPending(ctx, key, "stale").Result()
	require.NoError(t, err)

	r, err := p.RecountLag(ctx, "orders", shards)
	require.NoError(t, err)
	require.Equal(t, redisstore.LagRecount{Recounted: 2}, r)
	require.EqualValues(t, 0, groupLag(t, c, key, "stale"))
	require.EqualValues(t, 6, groupLag(t, c, key, "behind"))
	require.EqualValues(t, 4, groupLag(t, c, key, "unknown"))
	pendingAfter, err := c.XPending(ctx, key, "stale").Result()
	require.NoError(t, err)
	require.Equal(t, pendingBefore, pendingAfter, "the group's pending entries are untouched")
	groups, err := c.XInfoGroups(ctx, key).Result()
	require.NoError(t, err)
	for _, g := range groups {
		if g.Name == "stale" {
			require.Equal(t, last, g.LastDeliveredID, "the group did not move")
		}
	}

	// The counter goes on exactly from there.
	require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: key, NoMkStream: true, Values: []any{"n", 10}}).Err())
	require.EqualValues(t, 1, groupLag(t, c, key, "stale"))
	read("stale", 10)
	require.EqualValues(t, 0, groupLag(t, c, key, "stale"))

	again, err := p.RecountLag(ctx, "orders", shards)
	require.NoError(t, err)
	require.Equal(t, redisstore.LagRecount{}, again, "exact counters are left alone")
}

// A group further behind than RecountBound is left as it is.
func TestRecountLagLeavesAGroupFarBehindRedisServer(t *testing.T) {
	ctx := context.Background()
	c := redistest.Start(t).Client()
	p := redisstore.NewProvisioner(c)
	require.NoError(t, p.EnsureGroup(ctx, "orders", "far", 0, 1))
	key := redisstore.ShardKey("orders", 0)
	pipe := c.Pipeline()
	for i := 0; i <= redisstore.RecountBound; i++ {
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: key, NoMkStream: true, Values: []any{"n", i}})
	}
	_, err := pipe.Exec(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Do(ctx, "XGROUP", "SETID", key, "far", "0-0", "ENTRIESREAD", 5).Err())
	r, err := p.RecountLag(ctx, "orders", 1)
	require.NoError(t, err)
	require.Equal(t, redisstore.LagRecount{Left: 1}, r)
	require.EqualValues(t, redisstore.RecountBound+1-5, groupLag(t, c, key, "far"), "left as it was")
}

// On a Redis Cluster the primaries' run ids name every master; they stay
// the same while the masters do and change when one is replaced.
func TestPrimaryRunIDsOfAClusterRedisServer(t *testing.T) {
	ctx := context.Background()
	cl := redistest.StartClusterWithReplicas(t, 3)
	p := redisstore.NewProvisioner(cl.Client())
	ids, err := p.PrimaryRunIDs(ctx)
	require.NoError(t, err)
	require.Len(t, strings.Split(ids, ","), 3, "%s", ids)
	again, err := p.PrimaryRunIDs(ctx)
	require.NoError(t, err)
	require.Equal(t, ids, again)
	cl.KillMaster(0)
	require.Eventually(t, func() bool {
		now, err := p.PrimaryRunIDs(ctx)
		return err == nil && now != ids && len(strings.Split(now, ",")) == 3
	}, 30*time.Second, 100*time.Millisecond, "a replica took the killed master's place")
}
