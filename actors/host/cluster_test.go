//go:build !race

// The in-process cluster runs several protoactor remotes in one process; the
// library races on process-wide state there (grpclog setup in Remote.Start,
// the test provider's member list), so these tests run without -race (make
// test runs them in a second, race-free pass). Our own code in the same paths
// is raced by the multi-process tests in test/cluster.

package host

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/api/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
	"github.com/redisstream/coordinator/test/redistest"
)

// clusterHosts starts n hosts in this process as one cluster (protoactor's
// in-memory test provider) on one real redis-server.
func clusterHosts(t *testing.T, srv *redistest.Server, n int) []*Host {
	t.Helper()
	agent := test.NewInMemAgent()
	hosts := make([]*Host, n)
	for i := range hosts {
		store, err := redisstore.New(srv.Client(), redisstore.Options{})
		require.NoError(t, err)
		h := New(Options{
			Store: store, Provisioner: redisstore.NewProvisioner(srv.Client()), NodeID: fmt.Sprintf("n%d", i+1),
			Rules: quickRules, TrustEmptyStore: true,
			Cluster: &ClusterOptions{Name: "rsc-test", ProviderName: "test",
				Provider: test.NewTestProvider(agent, test.WithTestProviderServiceTtl(time.Second), test.WithTestProviderRefreshTtl(200*time.Millisecond)),
				Remote:   remote.Configure("127.0.0.1", 0)},
		})
		require.NoError(t, h.Start(context.Background()))
		hosts[i] = h
	}
	t.Cleanup(func() {
		for _, h := range hosts {
			h.Stop()
		}
	})
	require.Eventually(t, func() bool {
		for _, h := range hosts {
			if len(h.clusterMembers()) != n {
				return false
			}
		}
		return true
	}, 10*time.Second, 50*time.Millisecond, "the nodes did not see each other")
	return hosts
}

// Any node answers any request: members of one group heartbeat through
// different nodes, and exactly one node hosts the group's activation.
func TestClusterForwardsToOneActivation(t *testing.T) {
	srv := redistest.Start(t)
	hosts := clusterHosts(t, srv, 3)
	ctx := context.Background()
	six := 6
	_, err := hosts[0].CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &six, RequestedBy: "test"})
	require.NoError(t, err)

	owned := map[string][]protocol.ShardID{}
	epochs := map[string]int64{}
	beat := func(i int, id string) protocol.HeartbeatResponse {
		req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: id + "-r", MemberID: id, MemberEpoch: epochs[id],
			RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 4, AvailableConcurrency: 4},
			OwnedShards:             owned[id], RevokingShards: []protocol.RevokingShard{}}
		resp, err := hosts[i].Heartbeat(ctx, "orders", "billing", id, req)
		require.NoError(t, err)
		if resp.Status == protocol.StatusOK {
			epochs[id] = resp.MemberEpoch
			owned[id] = resp.Assignment.AssignedShards
		}
		return resp
	}
	ids := []string{"m1", "m2", "m3"}
	require.Eventually(t, func() bool {
		total := 0
		for i, id := range ids {
			beat(i, id) // member i talks to node i
			total += len(owned[id])
		}
		return total == 6 && len(owned["m1"]) == 2 && len(owned["m2"]) == 2 && len(owned["m3"]) == 2
	}, 20*time.Second, 20*time.Millisecond, "the group did not converge through three nodes: %v", owned)

	hosting := 0
	key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "billing"}
	for _, h := range hosts {
		if _, ok := h.active(key); ok {
			hosting++
		}
	}
	require.Equal(t, 1, hosting, "exactly one node hosts the activation")

	// Monitoring through any node sees the same group.
	for _, h := range hosts {
		m, err := h.Members(ctx, "orders", "billing")
		require.NoError(t, err)
		require.Len(t, m.Members, 3)
	}
	dbg, err := hosts[1].DebugActors(ctx)
	require.NoError(t, err)
	view := dbg.(DebugNode).Cluster
	require.Len(t, view, 3)
	n := 0
	for _, v := range view {
		for _, a := range v.Activations {
			require.Equal(t, key.String(), a.Group)
			require.Positive(t, a.ActivationEpoch)
			n++
		}
	}
	require.Equal(t, 1, n, "the cluster view lists the one activation")
	_ = group.Kind
}
