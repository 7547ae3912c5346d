package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// 'groups pause' and 'groups resume' post {paused, requestedBy, reason} to
// …/rebalancing and say what the pause means; 'groups describe' shows it.
func TestGroupsPauseResume(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	paused := `{"streamPrefix":"orders","consumerGroup":"billing","state":"RECONCILING","shardCount":4,"rebalancing":"paused",
		"rebalancingPause":{"requestedBy":"alice","reason":"deploy","since":"2026-12-02T12:00:00Z"}}`
	f.on("POST", "/coord/v1/streams/orders/groups/billing/rebalancing", 200, paused)
	r := ctl(t, "--url", f.URL, "--requested-by", "alice", "groups", "pause", "orders", "billing", "--reason", "deploy")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, map[string]any{"paused": true, "requestedBy": "alice", "reason": "deploy"}, f.last(t).Body)
	require.Contains(t, r.stdout, "is paused (paused by alice since 2026-12-02T12:00:00Z: deploy)")
	require.Contains(t, r.stdout, "Expired or fenced members' shards are still reassigned.")

	f.on("GET", "/coord/v1/monitoring/streams/orders/groups/billing", 200, paused)
	r = ctl(t, "--url", f.URL, "groups", "describe", "orders", "billing")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `rebalancing:?\s+paused by alice since 2026-12-02T12:00:00Z: deploy`, r.stdout)

	f.on("POST", "/coord/v1/streams/orders/groups/billing/rebalancing", 200,
		`{"streamPrefix":"orders","consumerGroup":"billing","state":"STABLE","shardCount":4,"rebalancing":"active"}`)
	r = ctl(t, "--url", f.URL, "--requested-by", "bob", "groups", "resume", "orders", "billing")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, map[string]any{"paused": false, "requestedBy": "bob", "reason": ""}, f.last(t).Body)
	require.Contains(t, r.stdout, "is active")

	r = ctl(t, "--url", f.URL, "groups", "pause", "orders")
	require.Equal(t, 2, r.code, "a missing GROUP is a usage error")
}
