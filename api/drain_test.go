package api

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func TestDrainRefusesNewWorkAndFailsReadiness(t *testing.T) {
	h := newHarness(t, Config{})
	r := h.do("GET", "/coord/v1/monitoring/live", "")
	require.Equal(t, 200, r.status)
	require.JSONEq(t, `{"status":"UP","draining":false}`, string(r.body))

	h.srv.BeginDrain()
	require.True(t, h.srv.Draining())
	r = h.do("POST", "/coord/v1/streams/orders/groups/g/members/m-1/heartbeat", validBody("POST", "/heartbeat"))
	e := h.assertRejected(r, 503, protocol.CodeShuttingDown)
	require.Contains(t, e.Message, "shutting down")
	require.Equal(t, "1", r.header.Get("Retry-After"))
	h.assertRejected(h.do("POST", "/coord/v1/streams/orders", `{"requestedBy":"a"}`), 503, protocol.CodeShuttingDown)
	h.assertRejected(h.do("GET", "/coord/v1/monitoring/groups", ""), 503, protocol.CodeShuttingDown)

	r = h.do("GET", "/coord/v1/monitoring/ready", "")
	require.Equal(t, 503, r.status)
	require.Contains(t, string(r.body), protocol.CodeShuttingDown)
	r = h.do("GET", "/coord/v1/monitoring/live", "")
	require.Equal(t, 200, r.status)
	require.JSONEq(t, `{"status":"DRAINING","draining":true}`, string(r.body))
	for _, p := range []string{"/coord/v1/monitoring/health", "/metrics", "/coord/v1/openapi.json", "/docs", "/coord/v1/monitoring/compatibility"} {
		require.Equal(t, 200, h.do("GET", p, "").status, p)
	}
}
