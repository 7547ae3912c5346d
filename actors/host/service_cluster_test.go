//go:build !race

package host

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// The cluster view, asked of either node, lists both nodes with their
// incarnations, addresses and registration times, and the one group
// activation on the node that hosts it.
func TestClusterViewListsNodesAndHostedGroups(t *testing.T) {
	srv := redistest.Start(t)
	hosts := clusterHosts(t, srv, 2)
	ctx := context.Background()
	two := 2
	_, err := hosts[0].Service().CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &two, RequestedBy: "test"})
	require.NoError(t, err)
	m := &clusterMember{id: "m1"}
	require.Eventually(t, func() bool { return m.beat(t, hosts[0]).Status == protocol.StatusOK }, 10*time.Second, 20*time.Millisecond)

	for _, asked := range hosts {
		var view protocol.ClusterResponse
		require.Eventually(t, func() bool {
			view, err = asked.Service().Cluster(ctx)
			require.NoError(t, err)
			if len(view.Nodes) != 2 {
				return false
			}
			for _, n := range view.Nodes {
				if n.StartedAt == "" {
					return false // registered at its first renewal
				}
			}
			return true
		}, 10*time.Second, 50*time.Millisecond, "both nodes, registered: %+v", view)
		require.Equal(t, asked.opts.NodeID, view.NodeID)
		groups := 0
		for i, n := range view.Nodes {
			require.Equal(t, hosts[i].opts.NodeID, n.NodeID, "sorted by node id")
			owner := hosts[i].node.Owner()
			require.Equal(t, owner[strings.LastIndexByte(owner, '/')+1:], n.Incarnation)
			require.NotEmpty(t, n.Incarnation)
			require.Equal(t, hosts[i].system.Address(), n.Address)
			require.Equal(t, n.NodeID == asked.opts.NodeID, n.Self)
			require.True(t, n.InCluster)
			require.False(t, n.Refusing)
			for _, g := range n.Groups {
				require.Equal(t, protocol.ClusterGroup{StreamPrefix: "orders", ConsumerGroup: "billing", ActivationEpoch: g.ActivationEpoch, Members: 1}, g)
				require.Positive(t, g.ActivationEpoch)
				groups++
			}
		}
		require.Equal(t, 1, groups, "one node hosts the group")
	}
}
