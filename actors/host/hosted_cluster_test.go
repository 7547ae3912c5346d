//go:build !race

// Without -race, as cluster_test.go: the in-process cluster races in the
// library.

package host

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
)

// In a cluster each active group is listed by HostedGroups on exactly one
// node, whichever node its members talk to: the metrics sampler samples it
// once per cluster.
func TestHostedGroupsOncePerCluster(t *testing.T) {
	srv := redistest.Start(t)
	hosts := clusterHosts(t, srv, 3)
	ctx := context.Background()
	four := 4
	_, err := hosts[0].Service().CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &four, RequestedBy: "test"})
	require.NoError(t, err)
	const groups = 12
	for i := 0; i < groups; i++ {
		g := fmt.Sprintf("g%02d", i)
		require.Eventually(t, func() bool {
			r, err := hosts[i%3].Service().Heartbeat(ctx, "orders", g, "m", protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: g, MemberID: "m",
				RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 1, AvailableConcurrency: 1}})
			return err == nil && r.Status == protocol.StatusOK
		}, 10*time.Second, 20*time.Millisecond, "group %s did not answer", g)
	}
	require.Eventually(t, func() bool {
		seen := map[persistence.GroupKey]int{}
		for _, h := range hosts {
			got, failed := h.router.HostedGroups(time.Second)
			if len(failed) > 0 {
				return false
			}
			for _, g := range got {
				seen[g.Key]++
				if g.ShardCount != 4 {
					return false
				}
			}
		}
		if len(seen) != groups {
			return false
		}
		for _, n := range seen {
			if n != 1 {
				return false
			}
		}
		return true
	}, 10*time.Second, 50*time.Millisecond, "every group must be listed by exactly one node")
}
