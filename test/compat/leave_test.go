package compat

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The reference's Kotlin client shuts down by stopping its workers, then
// sending ONE leave (memberEpoch -1) that lists every shard it had in
// ownedShards plus revokingShards marked REVOKED or DRAINING (SPEC §4,
// "Leave"). A leave means the member has stopped reading everything it does
// not report DRAINING: those shards are free at once and go to another
// member on its next heartbeat; a DRAINING one stays blocked until a later
// leave reports it REVOKED.
func TestKotlinShapedLeaveFreesShardsAtOnce(t *testing.T) {
	e := start(t)
	admin := basic(adminUser, adminPass)
	r := e.call(t, "POST", "/coord/v1/streams/orders%3Av2", admin, map[string]any{"initialShardCount": 4, "requestedBy": "compat"})
	require.Equal(t, 201, r.status, "%s", r.raw)
	worker := basic(memberUser, memberPass)

	// A owns every shard.
	a := &rawMember{e: e, authz: worker, prefix: prefix, group: group, id: "kotlin-a"}
	hb := a.beat(t, 0, nil, []map[string]any{})
	require.Equal(t, []int{0, 1, 2, 3}, assigned(t, hb))
	hb = a.beat(t, a.epoch, []int{0, 1, 2, 3}, []map[string]any{})
	require.Equal(t, "OK", hb["status"])

	// B joins, then confirms it is alive with its next heartbeat (admission: a member that has
	// not proven it is alive is given nothing). Then the target gives it half, still held by A,
	// so pending.
	b := &rawMember{e: e, authz: worker, prefix: prefix, group: group, id: "kotlin-b"}
	hb = b.beat(t, 0, nil, []map[string]any{})
	require.Equal(t, "OK", hb["status"])
	require.Empty(t, assigned(t, hb), "nothing is free while A holds every shard")
	hb = b.beat(t, b.epoch, nil, []map[string]any{})
	require.Equal(t, "OK", hb["status"])
	require.Empty(t, assigned(t, hb), "nothing is free while A holds every shard")
	require.Len(t, pending(t, hb), 2)

	// A shuts down the Kotlin way: workers stopped, one leave listing what it
	// owned (0, 1, 2), shard 3 still draining, nothing REVOKED yet.
	hb = a.beat(t, -1, []int{0, 1, 2}, []map[string]any{
		{"shard": map[string]any{"shardIndex": 3}, "state": "DRAINING", "inFlight": 1, "ackedAt": nil},
	})
	require.Equal(t, "OK", hb["status"], "leave answer: %v", hb)

	// B's next heartbeat gets 0, 1 and 2 at once (A is leaving: the target
	// gives B everything); 3 stays pending while A reports it DRAINING.
	hb = b.beat(t, b.epoch, nil, []map[string]any{}) // B owned nothing yet
	require.Equal(t, []int{0, 1, 2}, assigned(t, hb),
		"shards listed in ownedShards of a leave must be free at once (SPEC §4 Leave); got %v", hb)
	require.Equal(t, []int{3}, pending(t, hb))

	// A's second leave reports 3 REVOKED: B gets it on its next heartbeat.
	hb = a.beat(t, -1, nil, []map[string]any{
		{"shard": map[string]any{"shardIndex": 3}, "state": "REVOKED", "inFlight": 0, "ackedAt": "2026-01-01T00:00:00Z"},
	})
	require.Equal(t, "OK", hb["status"], "second leave: %v", hb)
	hb = b.beat(t, b.epoch, []int{0, 1, 2}, []map[string]any{})
	require.Equal(t, []int{0, 1, 2, 3}, assigned(t, hb))
	require.Empty(t, pending(t, hb))

	r = e.call(t, "GET", monitorPath(prefix, group)+"/assignments", basic(monitorUser, monitorPass), nil)
	require.Equal(t, 200, r.status)
	require.Empty(t, array(t, r.body["invariantViolations"], "invariantViolations"))
}
