package host

import (
	"os"
	"testing"
	"time"

	"github.com/redisstream/coordinator/test/benchresult"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// TestIdleGroupsRedisReadsBenchmark: Redis commands per second of a node hosting many active
// groups whose members heartbeat steadily (nothing changes), against the same node with no
// group, at the default timings (15 s lease). Counted with INFO commandstats over the window.
//
//	RSC_BENCH_IDLE_READS=1 [RSC_BENCH_IDLE_GROUPS=1000 RSC_BENCH_IDLE_WINDOW=10s] \
//	  go test -count=1 -run TestIdleGroupsRedisReadsBenchmark -v ./actors/host/
func TestIdleGroupsRedisReadsBenchmark(t *testing.T) {
	groups, window := idleBenchSettings(t)
	for _, n := range []int{0, groups} {
		srv := redistest.Start(t)
		h := perfHost(t, srv, defaultRules, 4)
		f := newPerfFleet(h, n, 1)
		for r := 0; r < 3; r++ {
			f.round(4)
		}
		require.Len(t, h.router.ActiveKeys(), n)
		calls, stats := idleReadsWindow(srv, window, func() { f.round(4) })
		rounds := float64(window) / float64(group.ConfirmInterval(defaultRules))
		t.Logf("%d active idle groups (1 steady member each), %s window (%.0f confirmation rounds): %.1f Redis commands/s (%d), %v; non-OK answers %d",
			n, window, rounds, float64(calls)/window.Seconds(), calls, stats, f.bad.Load())
		if n > 0 {
			t.Logf("HMGET calls %d for %d renewals (one inside each renewal script; a per-group confirmation would be %d); commands per lease window: %.0f",
				stats["hmget"], stats["evalsha"], int64(float64(n)*rounds), float64(calls)/window.Seconds()*defaultRules.LeaseTTL.Seconds())
		}
		writeBenchResult(t, benchresult.Idle{Kind: "idle", Nodes: 1, Groups: n, WindowSeconds: window.Seconds(), Commands: calls,
			CommandsPerSec: float64(calls) / window.Seconds(), Stats: stats, NonOK: f.bad.Load()})
		h.Stop()
		srv.Stop()
	}
}

// idleReadsWindow runs steady heartbeats for window (members beat every interval through
// beat) and returns the Redis commands counted meanwhile (script-internal ones included).
func idleReadsWindow(srv *redistest.Server, window time.Duration, beat func()) (int64, map[string]int64) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(defaultRules.HeartbeatInterval)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				beat()
			}
		}
	}()
	srv.ResetStats()
	time.Sleep(window)
	stats := srv.CommandCalls()
	close(stop)
	<-done
	var calls int64
	for cmd, c := range stats {
		if cmd != "config|resetstat" && cmd != "info" {
			calls += c
		}
	}
	return calls, stats
}

// idleBenchSettings gates the idle-reads benchmarks on RSC_BENCH_IDLE_READS
// and reads their group count and window (RSC_BENCH_IDLE_GROUPS, default
// 1,000; RSC_BENCH_IDLE_WINDOW, default 10 s).
func idleBenchSettings(t *testing.T) (groups int, window time.Duration) {
	t.Helper()
	if os.Getenv("RSC_BENCH_IDLE_READS") == "" {
		t.Skip("set RSC_BENCH_IDLE_READS=1 to run")
	}
	window = 10 * time.Second
	if w := os.Getenv("RSC_BENCH_IDLE_WINDOW"); w != "" {
		d, err := time.ParseDuration(w)
		require.NoError(t, err)
		window = d
	}
	return envInt(t, "RSC_BENCH_IDLE_GROUPS", 1000), window
}
