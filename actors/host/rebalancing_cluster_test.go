//go:build !race

package host

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// A pause or resume of rebalancing asked of either node of a cluster reaches
// the group's activation wherever it runs (the request crosses nodes as the
// wire op Rebalancing), and both nodes then show the group's rebalancing as
// the last request left it.
func TestRebalancingCrossesNodes(t *testing.T) {
	srv := redistest.Start(t)
	hosts := clusterHosts(t, srv, 2)
	ctx := context.Background()
	two := 2
	_, err := hosts[0].Service().CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &two, RequestedBy: "test"})
	require.NoError(t, err)
	m := &clusterMember{id: "m1"}
	require.Eventually(t, func() bool { return m.beat(t, hosts[0]).Status == protocol.StatusOK }, 10*time.Second, 20*time.Millisecond)

	yes, no := true, false
	for i, asked := range hosts {
		g, err := asked.Service().SetRebalancing(ctx, "orders", "billing", protocol.RebalancingRequest{Paused: &yes, RequestedBy: "ops", Reason: "node " + asked.opts.NodeID})
		require.NoError(t, err, "asked node %d", i)
		require.Equal(t, protocol.RebalancingPaused, g.Rebalancing)
		require.Equal(t, "node "+asked.opts.NodeID, g.RebalancingPause.Reason)
		other := hosts[1-i]
		g, err = other.Service().SetRebalancing(ctx, "orders", "billing", protocol.RebalancingRequest{Paused: &yes, RequestedBy: "ops", Reason: "again"})
		require.NoError(t, err)
		require.Equal(t, "node "+asked.opts.NodeID, g.RebalancingPause.Reason, "the first pause is kept")
		for _, other := range hosts {
			v, err := other.Service().MonitorGroup(ctx, "orders", "billing")
			require.NoError(t, err)
			require.Equal(t, protocol.RebalancingPaused, v.Rebalancing)
		}
		g, err = other.Service().SetRebalancing(ctx, "orders", "billing", protocol.RebalancingRequest{Paused: &no, RequestedBy: "ops"})
		require.NoError(t, err)
		require.Equal(t, protocol.RebalancingActive, g.Rebalancing)
		require.Nil(t, g.RebalancingPause)
	}
	_, err = hosts[1].Service().SetRebalancing(ctx, "orders", "nope", protocol.RebalancingRequest{Paused: &yes, RequestedBy: "ops"})
	require.Error(t, err, "an unknown group is not created")
}
