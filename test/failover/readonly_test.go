package failover

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// A coordinator given a fixed address whose Redis becomes a replica (a
// failover moved the primary elsewhere) cannot write: it says so in one
// WARN line, health reports redis READ_ONLY with Redis' refusal, readiness
// answers 503 so that balancers send members elsewhere, and the metric
// counts the refusals. Once the address is a primary again it heals by
// itself.
func TestFixedAddressDemotedToReplicaIsReported(t *testing.T) {
	other := redistest.Start(t)
	r := redistest.Start(t)
	env := map[string]string{"RSC_COORDINATION_HEARTBEAT_INTERVAL": "300ms", "RSC_COORDINATION_MEMBER_LEASE_TTL": "3s"}
	coord := harness.StartCoordinator(t, harness.Options{RedisAddr: r.Addr(), Env: env})
	c := harness.NewClient(coord.URL())
	c.CreateStream(t, "orders", 2)

	ctx := context.Background()
	host, port, _ := strings.Cut(other.Addr(), ":")
	require.NoError(t, r.Client().SlaveOf(ctx, host, port).Err(), "demote the coordinator's Redis to a replica")

	var h protocol.HealthResponse
	require.Eventually(t, func() bool {
		h = protocol.HealthResponse{}
		c.MustDo(t, http.MethodGet, "/coord/v1/monitoring/health", nil, &h, 200)
		return h.Redis == protocol.RedisReadOnly
	}, 15*time.Second, 100*time.Millisecond, "health says READ_ONLY: %+v", h)
	require.Equal(t, protocol.HealthDegraded, h.Status)
	require.Contains(t, h.RedisReason, "READONLY")
	code, body, err := c.Do(http.MethodGet, "/coord/v1/monitoring/ready", nil, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusServiceUnavailable, code, "ready: %s", body)
	require.Contains(t, string(body), "refuses its writes")
	require.Eventually(t, func() bool { return c.Metric(t, "rsc_store_read_only_total") > 0 }, 5*time.Second, 100*time.Millisecond)

	time.Sleep(2 * time.Second) // many renewals refused: still one line
	require.Equal(t, 1, strings.Count(coord.Logs(), "Redis answers but refuses writes"), "one WARN per outage:\n%s", coord.Logs())

	require.NoError(t, r.Client().SlaveOf(ctx, "NO", "ONE").Err(), "the address is a primary again")
	require.Eventually(t, func() bool {
		h = protocol.HealthResponse{}
		c.MustDo(t, http.MethodGet, "/coord/v1/monitoring/health", nil, &h, 200)
		return h.Redis == protocol.HealthUp && h.Status == protocol.HealthUp
	}, 15*time.Second, 100*time.Millisecond, "health is UP again: %+v", h)
	code, _, err = c.Do(http.MethodGet, "/coord/v1/monitoring/ready", nil, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code)
}
