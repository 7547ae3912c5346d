package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A brand-new deployment: a fresh redis-server, a real coordinator with the default
// store.trust-empty-store (false) and one member that heartbeats when each response says.
// Its first shard comes within two heartbeat intervals of its first heartbeat, health stays
// UP, and the coordinator logs no WARN or ERROR (a new deployment is not a data loss).
func TestFreshDeploymentGrantsWithinTwoIntervals(t *testing.T) {
	// A 1 s interval (not fastTiming's 250 ms): the bound is relative, and a loaded machine's
	// scheduling delays must not eat a quarter of it.
	interval := time.Second
	e := start(t, map[string]string{"RSC_STORE_TRUST_EMPTY_STORE": "false",
		"RSC_COORDINATION_HEARTBEAT_INTERVAL": "1s", "RSC_COORDINATION_MEMBER_LEASE_TTL": "6s", "RSC_COORDINATION_REBALANCE_TIMEOUT": "3s"})
	e.c.CreateStream(t, "orders", 4)
	m := e.member("m")
	first := time.Now()
	var took time.Duration
	for len(m.Shards()) == 0 {
		require.Less(t, time.Since(first), 10*interval, "never granted")
		r := m.Beat(t)
		require.Equal(t, "UP", health(t, e).Status, "health while the first member waits")
		if len(m.Shards()) > 0 {
			took = time.Since(first)
			break
		}
		require.NotEmpty(t, r.Message, "shards pending without a reason")
		time.Sleep(time.Duration(r.HeartbeatIntervalMs) * time.Millisecond)
	}
	t.Logf("first grant %s after the first heartbeat", took)
	require.LessOrEqual(t, took, 2*interval, "first grant later than two heartbeat intervals")
	for _, line := range strings.Split(e.coord.Logs(), "\n") {
		if strings.Contains(line, "AUTHENTICATION IS OFF") {
			continue // the harness runs without auth.users on purpose
		}
		require.False(t, strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR"), "a fresh deployment logged: %s", line)
	}
}
