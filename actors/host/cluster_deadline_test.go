//go:build !race

package host

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
)

// A request whose group lives on a node that no longer answers (its remote
// endpoint is gone, the member list still names it) is answered
// coordinator.ErrGroupMoving (503 with Retry-After) by the caller's deadline,
// not after protoactor's fixed 5 s lookup; so are the cluster-wide views,
// which list the silent node as not answering.
func TestUnreachableActivationAnswersByTheCallersDeadline(t *testing.T) {
	srv := redistest.Start(t)
	hosts := clusterHosts(t, srv, 2)
	ctx := context.Background()
	four := 4
	_, err := hosts[0].Service().CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &four, RequestedBy: "test"})
	require.NoError(t, err)
	m := &clusterMember{id: "m1"}
	require.Eventually(t, func() bool { return m.beat(t, hosts[0]).Status == protocol.StatusOK }, 10*time.Second, 20*time.Millisecond)
	key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "billing"}
	holder := hostOf(hosts, key)
	require.GreaterOrEqual(t, holder, 0)
	asker := hosts[1-holder]
	_, err = asker.Service().DebugGroup(ctx, "orders", "billing")
	require.NoError(t, err, "reachable first")

	hosts[holder].cl.c.Remote.Shutdown(false) // silent: no graceful leave, still listed

	const budget = 400 * time.Millisecond
	// What tells the deadline from protoactor's 5 s lookup, with room for a
	// loaded machine: an answer well before the 5 s.
	const late = budget + 2*time.Second
	rctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	start := time.Now()
	_, err = asker.Service().DebugGroup(rctx, "orders", "billing")
	took := time.Since(start)
	require.Error(t, err)
	require.True(t, errors.Is(err, coordinator.ErrGroupMoving) || errors.Is(err, coordinator.ErrUnavailable), "%v", err)
	require.Less(t, took, late, "answered after %s: %v", took, err)

	vctx, vcancel := context.WithTimeout(ctx, budget)
	defer vcancel()
	start = time.Now()
	view, err := asker.Service().Cluster(vctx)
	took = time.Since(start)
	require.NoError(t, err)
	require.Less(t, took, late, "the cluster view took %s", took)
	silent := 0
	for _, n := range view.Nodes {
		if n.RefusingReason != "" && n.Refusing {
			silent++
		}
	}
	require.Equal(t, 1, silent, "the silent node is listed as not answering: %+v", view.Nodes)
}
