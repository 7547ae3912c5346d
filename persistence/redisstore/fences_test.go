package redisstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/persistencetest"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

func TestFencesConformanceRedisServer(t *testing.T) {
	srv := redistest.Start(t)
	p := redisstore.NewProvisioner(srv.Client())
	persistencetest.RunFences(t, func(t *testing.T) persistence.Fences { return p })
}

// TestFenceLayout pins the documented layout (docs/PROTOCOL.md "Shard
// fence"): the key beside the stream, in its slot, never under the store's
// key prefix, with the fields owner, token, epoch and at.
func TestFenceLayout(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client()
	ctx := context.Background()
	p := redisstore.NewProvisioner(c)
	require.NoError(t, p.SetFences(ctx, "orders", "billing v2", []persistence.FenceUpdate{{Shard: 3, Owner: "m-1", Epoch: 7}}))

	key := protocol.FenceKey("orders:3", "billing v2")
	require.Equal(t, "{orders:3}:fence:billing%20v2", key)
	h, err := c.HGetAll(ctx, key).Result()
	require.NoError(t, err)
	require.Equal(t, "m-1", h["owner"])
	require.Equal(t, "1", h["token"])
	require.Equal(t, "7", h["epoch"])
	require.NotEmpty(t, h["at"])
	keys, err := c.Keys(ctx, "*").Result()
	require.NoError(t, err)
	require.Equal(t, []string{key}, keys, "one key per fence, nothing else written")

	// The hash tag is the whole stream key: the fence shares the stream's Cluster slot.
	fs, err := c.ClusterKeySlot(ctx, key).Result()
	if err == nil { // CLUSTER KEYSLOT answers on a standalone server too (Redis ≥ 7)
		ss, err := c.ClusterKeySlot(ctx, "orders:3").Result()
		require.NoError(t, err)
		require.Equal(t, ss, fs)
	}

	// A flushed script cache (restart) is recovered from.
	require.NoError(t, c.ScriptFlush(ctx).Err())
	require.NoError(t, p.SetFences(ctx, "orders", "billing v2", []persistence.FenceUpdate{{Shard: 3, Owner: ""}}))
	got, err := p.GetFences(ctx, "orders", "billing v2", []int{3})
	require.NoError(t, err)
	require.Equal(t, persistence.Fence{Owner: "", Token: 2, Epoch: 0, At: got[0].At}, got[0])
}
