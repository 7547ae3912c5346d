package compat

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// The reference's names: a stream prefix and group with ':' (its docs use
// orders:v2 and svc:workers), a member id with a space and Unicode.
const (
	prefix = "orders:v2"
	group  = "svc:workers"
)

// TestReferenceShapes replays, in order, what the reference's clients and
// dashboards send and read: login, create stream, producer routing with
// read-only and member credentials, a member's join, every monitoring body,
// and the reference's error codes.
func TestReferenceShapes(t *testing.T) {
	e := start(t)
	admin := basic(adminUser, adminPass)

	// Login as the reference's Python client does it: empty body, Basic
	// credentials in the header. Tokens last 7 days.
	r := e.call(t, "POST", "/coord/v1/auth/login", basic(memberUser, memberPass), nil)
	require.Equal(t, 200, r.status, "%s", r.raw)
	hasFields(t, "login", r.body, "accessToken", "tokenType", "expiresAt", "expiresInSeconds", "roles")
	require.Equal(t, "Bearer", r.body["tokenType"])
	require.Equal(t, float64(7*24*3600), r.body["expiresInSeconds"])
	require.Equal(t, []any{"MEMBER"}, r.body["roles"])
	exp, err := time.Parse(time.RFC3339, r.body["expiresAt"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, time.Now().Add(7*24*time.Hour), exp, time.Hour)
	memberBearer := "Bearer " + r.body["accessToken"].(string)
	// The body form works too; ADMIN is every role.
	r = e.call(t, "POST", "/coord/v1/auth/login", "", map[string]string{"username": adminUser, "password": adminPass})
	require.Equal(t, 200, r.status, "%s", r.raw)
	require.ElementsMatch(t, []any{"READ", "WRITE", "MEMBER"}, r.body["roles"])
	r = e.call(t, "POST", "/coord/v1/auth/login", basic(memberUser, "wrong"), nil)
	require.Equal(t, 401, r.status)
	errorBody(t, r, "UNAUTHORIZED", "UNAUTHENTICATED")

	// Create a stream whose prefix has a ':' → 201 {streamPrefix, shardCount, metadataVersion}.
	r = e.call(t, "POST", "/coord/v1/streams/orders%3Av2", admin, map[string]any{"initialShardCount": 4, "requestedBy": "compat", "reason": "compat suite"})
	require.Equal(t, 201, r.status, "%s", r.raw)
	hasFields(t, "create stream", r.body, "streamPrefix", "shardCount", "metadataVersion")
	require.Equal(t, prefix, r.body["streamPrefix"])
	require.Equal(t, float64(4), r.body["shardCount"])
	r = e.call(t, "POST", "/coord/v1/streams/"+prefix, admin, map[string]any{"requestedBy": "compat"})
	require.Equal(t, 409, r.status, "%s", r.raw)
	errorBody(t, r, "CONFLICT", "STREAM_PREFIX_ALREADY_EXISTS")
	r = e.call(t, "POST", "/coord/v1/streams/orders%7Bv2%7D", admin, map[string]any{"requestedBy": "compat"})
	require.Equal(t, 400, r.status, "braces in a stream prefix: %s", r.raw)

	// Producer routing with the reference's read-only (MONITOR) credentials
	// and with MEMBER credentials (a bearer token from the login above).
	for _, authz := range []string{basic(monitorUser, monitorPass), memberBearer} {
		r = e.call(t, "GET", groupPath(prefix, group)+"/producer-routing", authz, nil)
		require.Equal(t, 200, r.status, "%s", r.raw)
		hasFields(t, "producer routing", r.body, "streamPrefix", "consumerGroup", "metadataVersion", "shardCount", "streamKeyPattern", "shards")
		require.Equal(t, "orders:v2:{shardIndex}", r.body["streamKeyPattern"])
		shards := array(t, r.body["shards"], "shards")
		require.Len(t, shards, 4)
		s0 := object(t, shards[0], "shards[0]")
		hasFields(t, "routing shard", s0, "shardIndex", "streamKey", "redisSlot")
		require.Equal(t, "orders:v2:0", s0["streamKey"])
		require.Equal(t, float64(protocol.RedisSlot("orders:v2:0")), s0["redisSlot"])
	}
	// MONITOR cannot write.
	r = e.call(t, "POST", "/coord/v1/streams/other", basic(monitorUser, monitorPass), map[string]any{"requestedBy": "compat"})
	require.Equal(t, 403, r.status)
	errorBody(t, r, "FORBIDDEN", "FORBIDDEN")

	// A member joins (epoch 0, nothing owned) and confirms what it got. Its
	// id has a space and Unicode, escaped in the path.
	m := &rawMember{e: e, authz: memberBearer, prefix: prefix, group: group, id: "pod 사용자:m0"}
	hb := m.beat(t, 0, nil, nil)
	hasFields(t, "heartbeat", hb, "responseTo", "status", "memberId", "memberEpoch", "heartbeatIntervalMs",
		"rebalanceTimeoutMs", "memberLeaseTtlMs", "groupEpoch", "assignmentEpoch", "metadataVersion", "assignment")
	hasFields(t, "assignment", object(t, hb["assignment"], "assignment"), "assignedShards", "pendingShards", "metadataVersion")
	require.Equal(t, "OK", hb["status"])
	require.Equal(t, m.id, hb["memberId"])
	// A join is told the short interval (250 ms / 10, at least 50 ms) so that it confirms soon;
	// once confirmed, with nothing in flight, the configured one.
	require.Equal(t, float64(50), hb["heartbeatIntervalMs"])
	owned := assigned(t, hb)
	require.Equal(t, []int{0, 1, 2, 3}, owned)
	hb = m.beat(t, m.epoch, owned, nil)
	require.Equal(t, "OK", hb["status"])
	require.Equal(t, float64(250), hb["heartbeatIntervalMs"])
	// Progress as the reference reports it.
	r = e.call(t, "POST", groupPath(prefix, group)+"/members/pod%20%EC%82%AC%EC%9A%A9%EC%9E%90:m0/heartbeat", memberBearer, map[string]any{
		"protocolVersion": 1, "requestId": "progress-1", "memberId": m.id, "memberName": "compat-svc:workers",
		"memberEpoch": m.epoch, "metadataVersion": m.metadata,
		"runtimeConsumerCapacity": map[string]any{"runtimeMaxConcurrency": 2, "availableConcurrency": 1},
		"ownedShards":             shardList(owned),
		"shardProgress": []any{map[string]any{"shard": map[string]any{"shardIndex": 0}, "streamKey": "orders:v2:0",
			"lastDeliveredId": "1-0", "lastAckedId": "1-0", "pendingCount": 0, "updatedAt": "2026-01-01T00:00:00Z"}},
	})
	require.Equal(t, 200, r.status, "%s", r.raw)
	require.Equal(t, "OK", r.body["status"])
	// The reference's Python client sends memberName null when unset, and
	// revokingShards as an empty list.
	r = e.call(t, "POST", groupPath(prefix, "py-group")+"/members/py-m0/heartbeat", memberBearer, map[string]any{
		"protocolVersion": 1, "requestId": "py-join", "memberId": "py-m0", "memberName": nil,
		"memberEpoch": 0, "metadataVersion": 0,
		"runtimeConsumerCapacity": map[string]any{"runtimeMaxConcurrency": 1, "availableConcurrency": 1},
		"ownedShards":             []any{}, "revokingShards": []any{}, "shardProgress": []any{},
	})
	require.Equal(t, 200, r.status, "%s", r.raw)
	require.Equal(t, "OK", r.body["status"])
	require.Len(t, assigned(t, r.body), 4)

	checkMonitoring(t, e, m.id)

	// Deleting a group with a live member: 409 GROUP_HAS_ACTIVE_MEMBERS.
	r = e.call(t, "DELETE", groupPath(prefix, group), admin, map[string]any{"requestedBy": "compat", "reason": "compat"})
	require.Equal(t, 409, r.status, "%s", r.raw)
	errorBody(t, r, "CONFLICT", "GROUP_HAS_ACTIVE_MEMBERS")

	// Admin mutations are rate-limited per principal (burst 6 here):
	// RATE_LIMIT_EXCEEDED with Retry-After.
	limited := false
	for i := 0; i < 10 && !limited; i++ {
		r = e.call(t, "POST", "/coord/v1/streams/"+prefix, admin, map[string]any{"requestedBy": "compat"})
		if r.status == 429 {
			limited = true
			errorBody(t, r, "TOO_MANY_REQUESTS", "RATE_LIMIT_EXCEEDED")
		} else {
			require.Equal(t, 409, r.status, "%s", r.raw)
		}
	}
	require.True(t, limited, "no 429 within 10 admin calls with burst 6")
}

// checkMonitoring reads every monitoring body as a dashboard written
// against the reference would, and checks its field names.
func checkMonitoring(t *testing.T, e *env, memberID string) {
	t.Helper()
	reader := basic(monitorUser, monitorPass)

	r := e.call(t, "GET", "/coord/v1/monitoring/health", "", nil)
	require.Equal(t, 200, r.status)
	hasFields(t, "health", r.body, "status", "coordinatorId", "redis", "loop")
	require.Equal(t, "UP", r.body["status"])
	require.Equal(t, "UP", r.body["redis"])
	r = e.call(t, "GET", "/coord/v1/monitoring/ready", "", nil)
	require.Equal(t, 200, r.status)
	require.Equal(t, "UP", r.body["status"])

	r = e.call(t, "GET", "/coord/v1/monitoring/compatibility", reader, nil)
	require.Equal(t, 200, r.status, "%s", r.raw)
	hasFields(t, "compatibility", r.body, "currentCoordinationVersion", "supportedCoordinationVersions", "coordinationVersions")
	require.Equal(t, float64(1), r.body["currentCoordinationVersion"])
	require.Equal(t, map[string]any{"min": float64(1), "max": float64(1)}, r.body["supportedCoordinationVersions"])
	v := object(t, array(t, r.body["coordinationVersions"], "coordinationVersions")[0], "coordinationVersions[0]")
	hasFields(t, "coordinationVersions[0]", v, "version", "status", "introducedIn", "minimumSupportedUntil")
	hasFields(t, "introducedIn", object(t, v["introducedIn"], "introducedIn"), "major", "minor", "patch")

	r = e.call(t, "GET", "/coord/v1/monitoring/groups", reader, nil)
	require.Equal(t, 200, r.status, "%s", r.raw)
	found := false
	for _, g := range array(t, r.body["groups"], "groups") {
		if g := object(t, g, "groups[]"); g["consumerGroup"] == group {
			checkGroupResponse(t, g)
			found = true
		}
	}
	require.True(t, found, "group %s not listed: %s", group, r.raw)
	r = e.call(t, "GET", monitorPath(prefix, group), reader, nil)
	require.Equal(t, 200, r.status, "%s", r.raw)
	checkGroupResponse(t, r.body)

	r = e.call(t, "GET", monitorPath(prefix, group)+"/members", reader, nil)
	require.Equal(t, 200, r.status, "%s", r.raw)
	members := array(t, r.body["members"], "members")
	require.Len(t, members, 1)
	mv := object(t, members[0], "members[0]")
	hasFields(t, "member", mv, "memberId", "memberName", "state", "memberEpoch", "metadataVersion",
		"runtimeMaxConcurrency", "activeConsumerWorkers", "currentAssignment", "grantedAssignment", "revoking",
		"lastHeartbeatAt", "memberLeaseExpiresAt", "rebalanceTimeoutMs", "rebalanceDeadlineAt", "shardProgress")
	require.Equal(t, memberID, mv["memberId"])
	require.Equal(t, "ACTIVE", mv["state"])
	require.Equal(t, float64(2), mv["runtimeMaxConcurrency"])
	require.Equal(t, float64(1), mv["activeConsumerWorkers"])
	require.Equal(t, float64(3000), mv["rebalanceTimeoutMs"])
	require.Equal(t, []int{0, 1, 2, 3}, shardIndexes(t, mv["currentAssignment"]))
	require.Len(t, array(t, mv["shardProgress"], "shardProgress"), 1)

	r = e.call(t, "GET", monitorPath(prefix, group)+"/assignments", reader, nil)
	require.Equal(t, 200, r.status, "%s", r.raw)
	hasFields(t, "assignments", r.body, "targetAssignment", "currentAssignments", "revokeProgress", "invariantViolations")
	require.Equal(t, []int{0, 1, 2, 3}, shardIndexes(t, object(t, r.body["targetAssignment"], "targetAssignment")[memberID]))
	require.Equal(t, []int{0, 1, 2, 3}, shardIndexes(t, object(t, r.body["currentAssignments"], "currentAssignments")[memberID]))
	require.Empty(t, object(t, r.body["revokeProgress"], "revokeProgress (memberId → shards)"))
	require.Empty(t, array(t, r.body["invariantViolations"], "invariantViolations"))

	r = e.call(t, "GET", monitorPath(prefix, group)+"/consumption", reader, nil)
	require.Equal(t, 200, r.status, "%s", r.raw)
	rows := array(t, r.body["progress"], "progress")
	require.Len(t, rows, 1)
	row := object(t, rows[0], "progress[0]")
	hasFields(t, "progress row", row, "streamPrefix", "consumerGroup", "memberId", "memberName", "memberState",
		"shard", "streamKey", "lastDeliveredId", "lastAckedId", "pendingCount", "updatedAt")
	require.Equal(t, prefix, row["streamPrefix"])
	require.Equal(t, group, row["consumerGroup"])
	require.Equal(t, memberID, row["memberId"])
	require.Equal(t, "compat-svc:workers", row["memberName"])
	require.Equal(t, "ACTIVE", row["memberState"])
	require.Equal(t, "orders:v2:0", row["streamKey"])

	r = e.call(t, "GET", monitorPath(prefix, group)+"/migrations", reader, nil)
	require.Equal(t, 200, r.status, "%s", r.raw)
	hasFields(t, "migrations", r.body, "migrations", "activeReshardingId")
}

func checkGroupResponse(t *testing.T, g map[string]any) {
	t.Helper()
	hasFields(t, "group", g, "streamPrefix", "consumerGroup", "state", "groupEpoch", "assignmentEpoch",
		"metadataVersion", "shardCount", "activeMigration", "targetAssignmentSummary", "currentAssignmentSummary")
	require.Equal(t, prefix, g["streamPrefix"])
	require.Equal(t, group, g["consumerGroup"])
	require.Equal(t, "STABLE", g["state"])
}

// errorBody checks the SPEC/reference error body {status, errorCode, message}.
func errorBody(t *testing.T, r reply, status, code string) {
	t.Helper()
	hasFields(t, "error body", r.body, "status", "errorCode", "message")
	require.Equal(t, status, r.body["status"], "%s", r.raw)
	require.Equal(t, code, r.body["errorCode"], "%s", r.raw)
	require.NotEmpty(t, r.body["message"])
}
