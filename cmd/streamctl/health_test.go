package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// While Redis data loss holds grants, `streamctl health` says why in its table:
// the reason, until when grants are held, and which case it is.
func TestHealthShowsStateLost(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	f.on("GET", "/coord/v1/monitoring/ready", 200, `{"status":"DEGRADED","coordinatorId":"node-1","redis":"UP","loop":"UP",
		"stateLost":{"case":"member-reports-unknown-shards","reason":"orders/workers: member \"a\" reports memberEpoch 3",
		"detectedAt":"2024-05-01T10:00:00Z","grantsHeldUntil":"2024-05-01T10:00:18Z"}}`)
	r := ctl(t, "--url", f.URL, "health")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `(?m)^status:\s+DEGRADED$`, r.stdout)
	require.Regexp(t, `(?m)^state lost:\s+orders/workers: member "a" reports memberEpoch 3$`, r.stdout)
	require.Regexp(t, `(?m)^grants held until:\s+2024-05-01T10:00:18Z$`, r.stdout)
	require.Regexp(t, `(?m)^loss case:\s+member-reports-unknown-shards$`, r.stdout)

	// Healthy: none of those rows.
	f.on("GET", "/coord/v1/monitoring/ready", 200, `{"status":"UP","coordinatorId":"node-1","redis":"UP","loop":"UP"}`)
	r = ctl(t, "--url", f.URL, "health")
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stdout, "state lost")
	require.NotContains(t, r.stdout, "grants held until")
	require.NotContains(t, r.stdout, "loss case")
}
