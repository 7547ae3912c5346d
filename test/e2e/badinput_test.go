package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// Every malformed heartbeat gets a 4xx with the SPEC error body and changes
// nothing: the group's members and assignments read back identical.
func TestBadHeartbeatsChangeNothing(t *testing.T) {
	e := start(t, map[string]string{"RSC_HTTP_BODY_LIMIT": "64KiB", "RSC_COORDINATION_MEMBER_LEASE_TTL": "30s"})
	e.c.CreateStream(t, "orders", 4)
	a, b := e.member("a"), e.member("b")
	beatAll(t, 3, a, b)
	before := snapshot(t, e)

	path := harness.HeartbeatPath("orders", "workers", "a")
	valid, err := json.Marshal(a.Request())
	require.NoError(t, err)
	cases := []struct {
		name string
		path string
		body []byte
		want int
	}{
		{"malformed json", path, []byte(`{"protocolVersion":1,`), 400},
		{"not an object", path, []byte(`[1,2,3]`), 400},
		{"wrong type", path, []byte(strings.Replace(string(valid), `"memberEpoch":`, `"memberEpoch":"x","was":`, 1)), 400},
		{"missing required", path, []byte(`{"protocolVersion":1,"memberId":"a"}`), 400},
		{"overflowing number", path, []byte(strings.Replace(string(valid), `"memberEpoch":`, `"memberEpoch":1e400,"was":`, 1)), 400},
		{"oversized body", path, []byte(`{"protocolVersion":1,"pad":"` + strings.Repeat("x", 70<<10) + `"}`), 400},
		{"braces in path", "/coord/v1/streams/or%7Bders%7D/groups/workers/members/a/heartbeat", valid, 400},
		{"control character in path", "/coord/v1/streams/orders/groups/wor%00kers/members/a/heartbeat", valid, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, raw, err := e.c.Do("POST", tc.path, tc.body, nil)
			require.NoError(t, err)
			require.Equal(t, tc.want, status, string(raw))
			var body protocol.ErrorBody
			require.NoError(t, json.Unmarshal(raw, &body), string(raw))
			require.NotEmpty(t, body.Status)
			require.NotEmpty(t, body.ErrorCode)
			require.NotEmpty(t, body.Message)
		})
	}

	// Well-formed JSON with impossible values is refused at the HTTP edge.
	for name, mutate := range map[string]func(*protocol.HeartbeatRequest){
		"negative shard": func(r *protocol.HeartbeatRequest) { r.OwnedShards = []protocol.ShardID{{ShardIndex: -1}} },
		"duplicate shard": func(r *protocol.HeartbeatRequest) {
			r.OwnedShards = append(r.OwnedShards, r.OwnedShards[0])
		},
		"unknown revoke state": func(r *protocol.HeartbeatRequest) {
			r.RevokingShards = []protocol.RevokingShard{{Shard: r.OwnedShards[0], State: "MAYBE"}}
		},
		"negative metadata version": func(r *protocol.HeartbeatRequest) { r.MetadataVersion = -3 },
	} {
		req := a.Request()
		mutate(&req)
		status, raw, err := e.c.Do("POST", path, req, nil)
		require.NoError(t, err)
		require.Equal(t, 400, status, "%s: %s", name, raw)
		var body protocol.ErrorBody
		require.NoError(t, json.Unmarshal(raw, &body))
		require.Equal(t, "BAD_REQUEST", body.Status, name)
	}
	// Contract violations the protocol names get INVALID_REQUEST (HTTP 200).
	for name, mutate := range map[string]func(*protocol.HeartbeatRequest){
		"epoch below -1":          func(r *protocol.HeartbeatRequest) { r.MemberEpoch = -7 },
		"path and body id differ": func(r *protocol.HeartbeatRequest) { r.MemberID = "b" },
		"join while owning":       func(r *protocol.HeartbeatRequest) { r.MemberEpoch = 0 },
	} {
		req := a.Request()
		mutate(&req)
		r := a.Send(t, req)
		require.Equal(t, protocol.StatusInvalidRequest, r.Status, name)
	}
	require.Equal(t, before, snapshot(t, e), "rejected input changed the group")
}

func snapshot(t *testing.T, e *env) string {
	t.Helper()
	members := e.members(t)
	for id, m := range members {
		m.LastHeartbeatAt, m.LeaseExpiresAt = "", ""
		members[id] = m
	}
	b, err := json.Marshal([]any{members, e.assignments(t)})
	require.NoError(t, err)
	return string(b)
}

func TestAuthOnProtectedRoutes(t *testing.T) {
	users := `[{"username":"admin","password":"admin-secret","roles":["WRITE"]},{"username":"viewer","password":"viewer-secret","roles":["READ"]},` +
		`{"username":"worker","password":"worker-secret","roles":["MEMBER"],"streams":["orders"]}]`
	e := start(t, map[string]string{"RSC_AUTH_USERS": users, "RSC_AUTH_TOKEN_SECRET": "0123456789abcdef0123456789abcdef"})
	create := protocol.CreateStreamRequest{RequestedBy: "test"}

	status, raw, err := e.c.Do("GET", "/coord/v1/monitoring/groups", nil, nil)
	require.NoError(t, err)
	require.Equal(t, 401, status, string(raw))

	wrong := *e.c
	wrong.User, wrong.Password = "admin", "nope"
	status, _, _ = wrong.Do("GET", "/coord/v1/monitoring/groups", nil, nil)
	require.Equal(t, 401, status)

	viewer := *e.c
	viewer.User, viewer.Password = "viewer", "viewer-secret"
	viewer.MustDo(t, "GET", "/coord/v1/monitoring/groups", nil, nil, 200)
	status, raw, _ = viewer.Do("POST", "/coord/v1/streams/orders", create, nil)
	require.Equal(t, 403, status, string(raw))

	admin := *e.c
	admin.User, admin.Password = "admin", "admin-secret"
	admin.MustDo(t, "POST", "/coord/v1/streams/orders", create, nil, 201)

	// Health stays public.
	e.c.MustDo(t, "GET", "/coord/v1/monitoring/health", nil, nil, 200)

	// Secure by default: with users configured, heartbeats need a MEMBER credential, and the
	// worker's credential is scoped to the stream "orders".
	join := harness.NewMember(e.c, "orders", "workers", "w-1").Request()
	status, raw, _ = e.c.Do("POST", harness.HeartbeatPath("orders", "workers", "w-1"), join, nil)
	require.Equal(t, 401, status, "a heartbeat without credentials: %s", raw)
	worker := *e.c
	worker.User, worker.Password = "worker", "worker-secret"
	var hb protocol.HeartbeatResponse
	worker.MustDo(t, "POST", harness.HeartbeatPath("orders", "workers", "w-1"), join, &hb, 200)
	require.Equal(t, protocol.StatusOK, hb.Status)
	admin.MustDo(t, "POST", "/coord/v1/streams/payments", create, nil, 201)
	status, raw, _ = worker.Do("POST", harness.HeartbeatPath("payments", "workers", "w-1"), join, nil)
	require.Equal(t, 403, status, "out of the worker's stream scope: %s", raw)
	require.Contains(t, string(raw), "auth.users[].streams")
}
