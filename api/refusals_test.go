package api

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAuthenticatedRefusalsAreSummarised: a READ credential sending many
// admin POSTs (403) writes one record under its own name and one summary
// per window, not one record per request; the admin's change is written.
func TestAuthenticatedRefusalsAreSummarised(t *testing.T) {
	cfg := authConfig(t)
	cfg.AuditRefusalWindow = 300 * time.Millisecond
	sink := &sinkRecorder{}
	h := newHarness(t, cfg, WithAuditSink(sink))
	start := time.Now()
	const flood = 200
	for i := 0; i < flood; i++ {
		require.Equal(t, 403, h.do("POST", "/coord/v1/streams/orders/scale", `{"targetShardCount":0}`, "Authorization", basic("grafana", "grafana-pass")).status)
	}
	windows := int(time.Since(start)/cfg.AuditRefusalWindow) + 1
	require.Equal(t, 201, h.do("POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`, "Authorization", basic("admin", "admin-pass")).status)
	counted := func() (n, records int, admin bool) {
		sink.mu.Lock()
		defer sink.mu.Unlock()
		for _, r := range sink.recs {
			switch {
			case r.Principal == "admin" && r.Result == "ok":
				admin = true
			case r.Result == "denied":
				require.Equal(t, "grafana", r.Principal, "a refusal names the authenticated principal")
				n, records = n+1, records+1
			case r.Result == "refused":
				require.Equal(t, "grafana", r.Principal)
				var more int
				_, err := fmt.Sscanf(r.Detail, "%d more requests", &more)
				require.NoError(t, err, r.Detail)
				n, records = n+more, records+1
			}
		}
		return n, records, admin
	}
	require.Eventually(t, func() bool { n, _, _ := counted(); return n == flood }, 10*time.Second, 10*time.Millisecond)
	_, records, admin := counted()
	require.True(t, admin, "the authenticated change is written")
	require.LessOrEqual(t, records, 2*windows+2, "at most a first record and a summary per window")
}
