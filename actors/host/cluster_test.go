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
	"github.com/redisstream/coordinator/actors/service"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
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
	_, err := hosts[0].Service().CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &six, RequestedBy: "test"})
	require.NoError(t, err)

	owned := map[string][]protocol.ShardID{}
	epochs := map[string]int64{}
	beat := func(i int, id string) protocol.HeartbeatResponse {
		req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: id + "-r", MemberID: id, MemberEpoch: epochs[id],
			RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 4, AvailableConcurrency: 4},
			OwnedShards:             owned[id], RevokingShards: []protocol.RevokingShard{}}
		resp, err := hosts[i].Service().Heartbeat(ctx, "orders", "billing", id, req)
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
		if _, ok := h.router.Active(key); ok {
			hosting++
		}
	}
	require.Equal(t, 1, hosting, "exactly one node hosts the activation")

	// Monitoring through any node sees the same group.
	for _, h := range hosts {
		m, err := h.Service().Members(ctx, "orders", "billing")
		require.NoError(t, err)
		require.Len(t, m.Members, 3)
	}
	dbg, err := hosts[1].Service().DebugActors(ctx)
	require.NoError(t, err)
	view := dbg.(service.DebugNode).Cluster
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

// clusterMember is a protocol member in a test that talks to whichever node
// it is given.
type clusterMember struct {
	id     string
	epoch  int64
	owned  []protocol.ShardID
	status []protocol.Status
}

func (m *clusterMember) beat(t *testing.T, h *Host) protocol.HeartbeatResponse {
	t.Helper()
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: m.id + "-r", MemberID: m.id, MemberEpoch: m.epoch,
		RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 4, AvailableConcurrency: 4},
		OwnedShards:             m.owned, RevokingShards: []protocol.RevokingShard{}}
	resp, err := h.Service().Heartbeat(context.Background(), "orders", "billing", m.id, req)
	require.NoError(t, err)
	m.status = append(m.status, resp.Status)
	if resp.Status == protocol.StatusOK {
		m.epoch, m.owned = resp.MemberEpoch, resp.Assignment.AssignedShards
	}
	return resp
}

func hostOf(hosts []*Host, key persistence.GroupKey) int {
	for i, h := range hosts {
		if _, ok := h.router.Active(key); ok {
			return i
		}
	}
	return -1
}

// A node that stops gracefully hands its group over: members that keep
// heartbeating through the other nodes keep their shards and epochs, are
// never fenced, and the group is served again by another node.
func TestClusterHandsGroupOverOnStop(t *testing.T) {
	srv := redistest.Start(t)
	hosts := clusterHosts(t, srv, 3)
	six := 6
	_, err := hosts[0].Service().CreateStream(context.Background(), "orders", protocol.CreateStreamRequest{InitialShardCount: &six, RequestedBy: "test"})
	require.NoError(t, err)
	key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "billing"}
	members := []*clusterMember{{id: "m1"}, {id: "m2"}}
	require.Eventually(t, func() bool {
		for _, m := range members {
			m.beat(t, hosts[0])
		}
		return len(members[0].owned) == 3 && len(members[1].owned) == 3
	}, 20*time.Second, 20*time.Millisecond)

	old := hostOf(hosts, key)
	require.GreaterOrEqual(t, old, 0)
	before := map[string]int64{"m1": members[0].epoch, "m2": members[1].epoch}
	owned := map[string][]protocol.ShardID{"m1": members[0].owned, "m2": members[1].owned}
	var survivors []*Host
	for i, h := range hosts {
		if i != old {
			survivors = append(survivors, h)
		}
	}
	done := make(chan struct{})
	go func() { hosts[old].Stop(); close(done) }()
	// Heartbeat through the survivors until the group answers OK from a new node.
	deadline := time.Now().Add(20 * time.Second)
	served := false
	for time.Now().Before(deadline) {
		ok := 0
		for i, m := range members {
			if m.beat(t, survivors[i%len(survivors)]).Status == protocol.StatusOK {
				ok++
			}
		}
		if ok == len(members) && hostOf(survivors, key) >= 0 {
			select {
			case <-done:
				served = true
			default:
			}
		}
		if served {
			break
		}
		time.Sleep(quickRules.HeartbeatInterval)
	}
	require.True(t, served, "the group was not served by another node after the hand-over")
	for _, m := range members {
		require.Equal(t, before[m.id], m.epoch, "member %s: epoch changed by the hand-over", m.id)
		require.Equal(t, owned[m.id], m.owned, "member %s: shards changed by the hand-over", m.id)
		for _, s := range m.status {
			require.Contains(t, []protocol.Status{protocol.StatusOK, protocol.StatusRetry}, s, "member %s was told %s", m.id, s)
		}
	}
}
