package redisstore_test

import (
	"context"
	"testing"

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
