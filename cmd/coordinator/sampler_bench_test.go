package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

// TestSamplerCost measures one sampling round's Redis commands and duration
// against a real redis-server, with RSC_BENCH_SAMPLER_GROUPS groups (1000)
// of one stream of RSC_BENCH_SAMPLER_SHARDS shards (64):
//
//   - before: the previous sampler's Redis reads, ShardInfo (XINFO STREAM +
//     XINFO GROUPS, sequential) per (group, shard), done by every node;
//   - after, 1 node: this sampler, hosting every group;
//   - after, 3 nodes: three samplers at once, each hosting a third of the
//     groups (the host side is a fixed list: its cost is in-process).
//
// Opt-in: RSC_BENCH_SAMPLER=1 go test ./cmd/coordinator/ -run TestSamplerCost -v
// (RSC_BENCH_SAMPLER_BEFORE=0 skips the slow "before" round).
func TestSamplerCost(t *testing.T) {
	if os.Getenv("RSC_BENCH_SAMPLER") == "" {
		t.Skip("set RSC_BENCH_SAMPLER=1 to measure the sampler's Redis cost")
	}
	groups, shards := envInt("RSC_BENCH_SAMPLER_GROUPS", 1000), envInt("RSC_BENCH_SAMPLER_SHARDS", 64)
	ctx := context.Background()
	srv := redistest.Start(t)
	c := srv.Client()
	p := redisstore.NewProvisioner(c)
	hosted := make([]router.HostedGroup, groups)
	for i := range hosted {
		g := fmt.Sprintf("g%04d", i)
		require.NoError(t, p.EnsureGroup(ctx, "bench", g, 0, shards))
		hosted[i] = router.HostedGroup{Key: persistence.GroupKey{StreamPrefix: "bench", ConsumerGroup: g}, ShardCount: shards}
	}
	t.Logf("%d groups × %d shards on one stream, redis-server %s", groups, shards, serverVersion(t, c))

	if os.Getenv("RSC_BENCH_SAMPLER_BEFORE") != "0" {
		measure(t, c, "before, per node", func() {
			for _, g := range hosted {
				for s := 0; s < shards; s++ {
					_, err := p.ShardInfo(ctx, "bench", g.Key.ConsumerGroup, s)
					require.NoError(t, err)
				}
			}
		})
	}
	sampler := func(part []router.HostedGroup) *groupSampler {
		return &groupSampler{hosts: &fakeHosts{groups: part}, redis: p, m: metrics.New(),
			log: slog.New(slog.NewTextHandler(io.Discard, nil)), interval: time.Minute}
	}
	one := sampler(hosted)
	measure(t, c, "after, 1 node", func() { require.False(t, one.sample(ctx)) })
	var three []*groupSampler
	for n := 0; n < 3; n++ {
		var part []router.HostedGroup
		for i := n; i < groups; i += 3 {
			part = append(part, hosted[i])
		}
		three = append(three, sampler(part))
	}
	measure(t, c, "after, 3 nodes together", func() {
		var wg sync.WaitGroup
		for _, s := range three {
			wg.Add(1)
			go func() { defer wg.Done(); require.False(t, s.sample(ctx)) }()
		}
		wg.Wait()
	})
	idle := sampler(nil)
	measure(t, c, "after, idle node", func() { require.False(t, idle.sample(ctx)) })
}

// measure runs one round and logs its Redis commands (INFO commandstats,
// the INFO and CONFIG calls of the measurement left out), the time Redis
// spent in them, and the round's wall time.
func measure(t *testing.T, c *redis.Client, name string, round func()) {
	t.Helper()
	require.NoError(t, c.ConfigResetStat(context.Background()).Err())
	start := time.Now()
	round()
	took := time.Since(start)
	calls, usec := commandStats(t, c)
	var total int64
	var parts []string
	for cmd, n := range calls {
		total += n
		parts = append(parts, fmt.Sprintf("%s=%d", cmd, n))
	}
	t.Logf("%-24s round %8.3fs  commands/round %7d (%s)  redis busy %8.3fs  commands/s at 15s interval %8.1f",
		name, took.Seconds(), total, strings.Join(parts, " "), float64(usec)/1e6, float64(total)/max(15, took.Seconds()))
}

func commandStats(t *testing.T, c *redis.Client) (map[string]int64, int64) {
	t.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	calls := map[string]int64{}
	var usec int64
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "cmdstat_"), ":")
		if !ok || !strings.HasPrefix(strings.TrimSpace(line), "cmdstat_") || name == "info" || strings.HasPrefix(name, "config") {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "calls":
				calls[name] = n
			case "usec":
				usec += n
			}
		}
	}
	return calls, usec
}

func serverVersion(t *testing.T, c *redis.Client) string {
	info, err := c.Info(context.Background(), "server").Result()
	require.NoError(t, err)
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			return v
		}
	}
	return "?"
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
