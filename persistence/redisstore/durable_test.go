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

// On Redis Cluster the WAIT of a write goes to the primary the write went
// to, not to any node (WAIT names no key): a write to a primary whose
// replica is gone is not acknowledged even though other primaries have
// theirs, and a write to a primary with its replica is.
func TestWaitReplicasOnClusterAsksTheWritesPrimary(t *testing.T) {
	ctx := context.Background()
	cl := redistest.StartClusterWithReplicas(t, 2)
	cc := cl.Client()
	store, err := redisstore.New(cc, redisstore.Options{WaitReplicas: 1, WaitTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	// A stream name whose record lives on each primary.
	onNode := map[string]string{}
	for i := 0; len(onNode) < 2 && i < 1000; i++ {
		name := "s" + strconv.Itoa(i)
		node, err := cc.MasterForKey(ctx, "rsc:{s:"+name+"}:stream")
		require.NoError(t, err)
		if _, ok := onNode[node.Options().Addr]; !ok {
			onNode[node.Options().Addr] = name
		}
	}
	require.Len(t, onNode, 2)
	cl.Replicas[0].Stop() // Nodes[0] loses its replica; Nodes[1] keeps its own
	two := 2
	_, err = store.CreateStream(ctx, persistence.StreamRecord{StreamPrefix: onNode[cl.Nodes[0].Addr()], ShardCount: two})
	require.ErrorIs(t, err, persistence.ErrUnavailable, "the write's primary has no replica")
	require.Contains(t, err.Error(), "acknowledged by 0 of 1")
	_, err = store.CreateStream(ctx, persistence.StreamRecord{StreamPrefix: onNode[cl.Nodes[1].Addr()], ShardCount: two})
	require.NoError(t, err, "the write's primary has its replica")
}
