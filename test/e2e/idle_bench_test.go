package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
	"github.com/redisstream/coordinator/test/harness"
)

// cpuTicks reads utime+stime (clock ticks, 100 per second on Linux) of pid.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	// Fields after the parenthesised command name; utime and stime are fields 14 and 15.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, err := strconv.ParseInt(f[11], 10, 64)
	require.NoError(t, err)
	s, err := strconv.ParseInt(f[12], 10, 64)
	require.NoError(t, err)
	return u + s
}

// TestIdleCostBenchmark measures what an idle coordinator costs with many stored groups and
// no traffic (issue 10 point 2): CPU of the real process over 30 s (/proc/<pid>/stat) and
// Redis commands per lease window (INFO commandstats), against a baseline with no stored
// group measured in the same run. Default timings (15 s lease). Not part of `make test`:
//
//	RSC_BENCH_IDLE=1 go test -count=1 -run TestIdleCostBenchmark -v ./test/e2e/
func TestIdleCostBenchmark(t *testing.T) {
	if os.Getenv("RSC_BENCH_IDLE") != "1" {
		t.Skip("benchmark: set RSC_BENCH_IDLE=1")
	}
	const window = 30 * time.Second
	const lease = 15 * time.Second
	for _, n := range []int{0, 10000} {
		r := redistest.Start(t)
		store, err := redisstore.New(r.Client(), redisstore.Options{})
		require.NoError(t, err)
		ctx := context.Background()
		_, err = store.CreateStream(ctx, persistence.StreamRecord{StreamPrefix: "orders", ShardCount: 4, MetadataVersion: 1})
		require.NoError(t, err)
		rules := model.Config{HeartbeatInterval: 3 * time.Second, LeaseTTL: lease, RebalanceTimeout: time.Minute, Retention: time.Hour}
		for i := 0; i < n; i++ {
			k := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: fmt.Sprintf("g%05d", i)}
			snap, err := store.Activate(ctx, k, "seed/0")
			require.NoError(t, err)
			meta, _ := json.Marshal(groupstate.New(rules, k.StreamPrefix, k.ConsumerGroup, 4, 1).Meta())
			_, err = store.SaveGroup(ctx, k, snap.ActivationEpoch, snap.Revision, persistence.GroupChange{Meta: meta})
			require.NoError(t, err)
			require.NoError(t, store.ReleaseActivation(ctx, k, snap.ActivationEpoch, nil))
		}
		coord := harness.StartCoordinator(t, harness.Options{RedisAddr: r.Addr(), Env: map[string]string{"RSC_LOG_LEVEL": "info"}})
		time.Sleep(3 * time.Second) // start-up work (first sweep, registry) out of the measured window
		r.ResetStats()
		c0 := cpuTicks(t, coord.Pid())
		time.Sleep(window)
		c1 := cpuTicks(t, coord.Pid())
		stats := r.CommandCalls()
		var cmds int64
		for k, v := range stats {
			if k != "config|resetstat" && k != "info" {
				cmds += v
			}
		}
		cpu := float64(c1-c0) / 100 / window.Seconds() * 100
		perWindow := float64(cmds) / (window.Seconds() / lease.Seconds())
		t.Logf("stored groups %5d: CPU %.2f %% of a core over %s; Redis: %d commands (%.0f per lease window), evalsha %d, zrange %d; stats %v",
			n, cpu, window, cmds, perWindow, stats["evalsha"], stats["zrange"], stats)
		require.Less(t, cpu, 5.0)
		coord.Stop()
	}
}
