package failover

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// Every Sentinel lost while the primary is down too: the coordinator cannot
// find a primary, says so in one ERROR line naming redis.sentinel.addrs,
// answers RETRY meanwhile, and writes again by itself once they are back.
func TestAllSentinelsLostThenBack(t *testing.T) {
	s := redistest.StartSentinels(t)
	env := sentinelEnv(s)
	env["RSC_COORDINATION_HEARTBEAT_INTERVAL"], env["RSC_COORDINATION_MEMBER_LEASE_TTL"] = "300ms", "3s"
	coord := harness.StartCoordinator(t, harness.Options{RedisAddr: s.Primary(), Env: env})
	c := harness.NewClient(coord.URL())
	c.CreateStream(t, "orders", 2)
	m := harness.NewMember(c, "orders", "workers", "a")
	require.Eventually(t, func() bool { m.Beat(t); return len(m.Shards()) == 2 }, 10*time.Second, 50*time.Millisecond)

	primary := s.Node(s.Primary())
	for _, sn := range s.Sentinel {
		sn.Stop()
	}
	primary.Stop() // no failover without Sentinels: nothing is the primary now
	require.Eventually(t, func() bool {
		return strings.Contains(coord.Logs(), "no Sentinel of redis.sentinel.addrs answers")
	}, 20*time.Second, 100*time.Millisecond, "an ERROR names redis.sentinel.addrs")
	require.Equal(t, 1, strings.Count(coord.Logs(), "no Sentinel of redis.sentinel.addrs answers"), "once per outage")
	require.Equal(t, protocol.StatusRetry, m.Beat(t).Status, "members are told to retry (and keep their shards)")

	primary.Restart()
	for _, sn := range s.Sentinel {
		sn.Restart()
	}
	// The primary restarted empty (no persistence here): the coordinator
	// writes again, and treats the empty store as a data loss or a new data
	// set, which is not this test's subject.
	require.Eventually(t, func() bool { return strings.Contains(coord.Logs(), "node record renewed again") }, 30*time.Second, 100*time.Millisecond,
		"the coordinator writes again once the Sentinels are back")
	require.Eventually(t, func() bool { return m.Beat(t).Status != protocol.StatusRetry }, 30*time.Second, 100*time.Millisecond,
		"heartbeats are evaluated again")
	var h protocol.HealthResponse
	c.MustDo(t, http.MethodGet, "/coord/v1/monitoring/health", nil, &h, 200)
	require.Equal(t, protocol.HealthUp, h.Redis)
}
