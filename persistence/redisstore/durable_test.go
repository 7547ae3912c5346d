package redisstore_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

// With store.wait-replicas, a write is acknowledged only once a replica has it: with no replica
// attached it fails as unavailable (outcome unknown to the caller), with one it succeeds and the
// replica holds it.
func TestWaitReplicas(t *testing.T) {
	ctx := context.Background()
	primary := redistest.Start(t)
	store, err := redisstore.New(primary.Client(), redisstore.Options{WaitReplicas: 1, WaitTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	k := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "g"}
	_, err = store.Activate(ctx, k, "n/1")
	require.ErrorIs(t, err, persistence.ErrUnavailable, "no replica: the activation is not safe yet")
	require.Contains(t, err.Error(), "store.wait-replicas")

	replica := redistest.Start(t)
	host, port, _ := strings.Cut(primary.Addr(), ":")
	require.NoError(t, replica.Client().ReplicaOf(ctx, host, port).Err())
	require.Eventually(t, func() bool {
		info, err := primary.Client().Info(ctx, "replication").Result()
		return err == nil && strings.Contains(info, "connected_slaves:1") && strings.Contains(info, "state=online")
	}, 10*time.Second, 50*time.Millisecond)
	// A replica that just attached may take longer than 100 ms to acknowledge on a loaded box:
	// the acknowledged path gets a generous timeout (what is tested is that it waits for one).
	store, err = redisstore.New(primary.Client(), redisstore.Options{WaitReplicas: 1, WaitTimeout: 5 * time.Second})
	require.NoError(t, err)
	snap, err := store.Activate(ctx, k, "n/1")
	require.NoError(t, err)
	rev, err := store.SaveGroup(ctx, k, snap.ActivationEpoch, snap.Revision, persistence.GroupChange{Meta: []byte(`{"v":1}`)})
	require.NoError(t, err)
	onReplica, err := redisstore.New(replica.Client(), redisstore.Options{})
	require.NoError(t, err)
	loaded, err := onReplica.LoadGroup(ctx, k)
	require.NoError(t, err)
	require.Equal(t, rev, loaded.Revision, "the acknowledged write is on the replica")
	require.Equal(t, strconv.FormatInt(snap.ActivationEpoch, 10), strconv.FormatInt(loaded.ActivationEpoch, 10))
}
