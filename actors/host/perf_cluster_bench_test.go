//go:build !race

package host

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redisstream/coordinator/test/benchresult"

	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

// TestIdleGroupsRedisReadsClusterBenchmark is TestIdleGroupsRedisReadsBenchmark on an
// in-process cluster of two nodes (protoactor's test provider), every member heartbeating
// through both nodes in turn, so that half the heartbeats are forwarded. Without -race (the
// in-process cluster races inside the library, see cluster_test.go).
//
//	RSC_BENCH_IDLE_READS=1 [RSC_BENCH_IDLE_GROUPS=1000 RSC_BENCH_IDLE_WINDOW=10s] \
//	  go test -count=1 -run TestIdleGroupsRedisReadsClusterBenchmark -v ./actors/host/
func TestIdleGroupsRedisReadsClusterBenchmark(t *testing.T) {
	groups, window := idleBenchSettings(t)
	for _, n := range []int{0, groups} {
		srv := redistest.Start(t)
		agent := test.NewInMemAgent()
		hosts := make([]*Host, 2)
		for i := range hosts {
			store, err := redisstore.New(srv.Client(), redisstore.Options{})
			require.NoError(t, err)
			hosts[i] = New(Options{
				Store: store, Provisioner: redisstore.NewProvisioner(srv.Client()), NodeID: fmt.Sprintf("n%d", i+1),
				Rules: defaultRules, TrustEmptyStore: true, RequestTimeout: 10 * time.Second,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				Cluster: &ClusterOptions{Name: "rsc-bench", ProviderName: "test",
					Provider: test.NewTestProvider(agent, test.WithTestProviderServiceTtl(time.Second), test.WithTestProviderRefreshTtl(200*time.Millisecond)),
					Remote:   remote.Configure("127.0.0.1", 0)},
			})
			require.NoError(t, hosts[i].Start(context.Background()))
		}
		require.Eventually(t, func() bool {
			return len(hosts[0].clusterMembers()) == 2 && len(hosts[1].clusterMembers()) == 2
		}, 10*time.Second, 50*time.Millisecond)
		four := 4
		_, err := hosts[0].Service().CreateStream(context.Background(), "orders", protocol.CreateStreamRequest{InitialShardCount: &four, RequestedBy: "bench"})
		require.NoError(t, err)
		fleets := []*perfFleet{newPerfFleet(hosts[0], n, 1), newPerfFleet(hosts[1], n, 1)}
		fleets[1].state = fleets[0].state // the same members, through the other node
		turn := 0
		beat := func() { fleets[turn%2].round(4); turn++ }
		for r := 0; r < 4; r++ {
			beat()
		}
		active := len(hosts[0].router.ActiveKeys()) + len(hosts[1].router.ActiveKeys())
		calls, stats := idleReadsWindow(srv, window, beat)
		rounds := float64(window) / float64(group.ConfirmInterval(defaultRules))
		t.Logf("2 nodes, %d groups (%d activations; 1 steady member each, heartbeating through both nodes in turn), %s window (%.0f confirmation rounds per node): %.1f Redis commands/s (%d), %v; non-OK answers %d",
			n, active, window, rounds, float64(calls)/window.Seconds(), calls, stats, fleets[0].bad.Load()+fleets[1].bad.Load())
		writeBenchResult(t, benchresult.Idle{Kind: "idle", Nodes: 2, Groups: n, WindowSeconds: window.Seconds(), Commands: calls,
			CommandsPerSec: float64(calls) / window.Seconds(), Stats: stats, NonOK: fleets[0].bad.Load() + fleets[1].bad.Load()})
		for _, h := range hosts {
			h.Stop()
		}
		srv.Stop()
	}
}
