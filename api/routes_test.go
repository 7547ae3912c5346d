package api

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Every route's happy path: status, JSON shape, and the Service call it made.
func TestRoutesHappyPath(t *testing.T) {
	const g = "/coord/v1/streams/orders/groups/workers"
	const mon = "/coord/v1/monitoring/streams/orders/groups/workers"
	cases := []struct {
		method, path, body string
		status             int
		call               string
		check              func(t *testing.T, r reply)
	}{
		{"POST", hbPath, hbBody, 200, "Heartbeat orders/workers/10.0.3.7-m0", func(t *testing.T, r reply) {
			var resp protocol.HeartbeatResponse
			r.decode(t, &resp)
			require.Equal(t, protocol.StatusOK, resp.Status)
			require.Equal(t, "r-1", resp.ResponseTo)
			require.Len(t, resp.Assignment.AssignedShards, 2)
		}},
		{"POST", "/coord/v1/streams/orders", `{"initialShardCount":8,"requestedBy":"ops","reason":"new"}`, 201, "CreateStream orders", func(t *testing.T, r reply) {
			var resp protocol.CreateStreamResponse
			r.decode(t, &resp)
			require.Equal(t, protocol.CreateStreamResponse{StreamPrefix: "orders", ShardCount: 8, MetadataVersion: 1}, resp)
		}},
		{"POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`, 201, "CreateStream orders", nil},
		{"POST", g, `{"requestedBy":"ops","reason":"new service"}`, 201, "CreateGroup orders/workers", checkGroup},
		{"GET", g, "", 200, "Group orders/workers", checkGroup},
		{"POST", g, `{"requestedBy":"ops","assignment":"capacity"}`, 201, "CreateGroup orders/workers", checkGroup},
		{"POST", g + "/assignment", `{"assignment":"capacity","requestedBy":"ops","reason":"mixed pod sizes"}`, 200, "SetAssignment orders/workers", func(t *testing.T, r reply) {
			checkGroup(t, r)
			require.Contains(t, string(r.body), `"assignment":"capacity"`)
		}},
		{"DELETE", g, `{"requestedBy":"ops","reason":"gone","force":true}`, 200, "DeleteGroup orders/workers", func(t *testing.T, r reply) {
			var resp protocol.DeleteGroupResponse
			r.decode(t, &resp)
			require.True(t, resp.Deleted)
		}},
		{"GET", g + "/producer-routing", "", 200, "ProducerRouting orders/workers", func(t *testing.T, r reply) {
			var resp protocol.ProducerRouting
			r.decode(t, &resp)
			require.Equal(t, "orders:{shardIndex}", resp.StreamKeyPattern)
			require.Equal(t, 8578, resp.Shards[0].RedisSlot)
		}},
		{"POST", "/coord/v1/streams/orders/scale", `{"targetShardCount":0,"requestedBy":"ops","reason":"drain"}`, 202, "Scale orders", func(t *testing.T, r reply) {
			var resp protocol.ScaleResponse
			r.decode(t, &resp)
			require.Equal(t, 0, resp.TargetShardCount)
			require.NotNil(t, resp.Migrations)
			require.Contains(t, string(r.body), `"migrations":[]`)
		}},
		{"GET", g + "/migrations/rs-1", "", 200, "Migration orders/workers/rs-1", func(t *testing.T, r reply) {
			var m protocol.Migration
			r.decode(t, &m)
			require.Equal(t, "rs-1", m.ReshardingID)
		}},
		{"POST", g + "/migrations/rs-1/rollback", `{"requestedBy":"ops","reason":"oops"}`, 202, "Rollback orders/workers/rs-1", func(t *testing.T, r reply) {
			var m protocol.Migration
			r.decode(t, &m)
			require.Equal(t, protocol.MigrationRollingBack, m.State)
		}},
		{"GET", "/coord/v1/monitoring/health", "", 200, "Health", func(t *testing.T, r reply) {
			var h protocol.HealthResponse
			r.decode(t, &h)
			require.Equal(t, "UP", h.Status)
		}},
		{"GET", "/coord/v1/monitoring/compatibility", "", 200, "", func(t *testing.T, r reply) {
			var c protocol.CompatibilityResponse
			r.decode(t, &c)
			require.Equal(t, []int{1}, c.SupportedProtocolVersions)
			require.Equal(t, 1, c.CurrentCoordinationVersion)
			require.Equal(t, protocol.VersionRange{Min: 1, Max: 1}, c.SupportedCoordinationVersions)
			require.Len(t, c.CoordinationVersions, 1)
			require.Equal(t, "ACTIVE", c.CoordinationVersions[0].Status)
		}},
		{"GET", "/coord/v1/monitoring/ready", "", 200, "Health", nil},
		{"GET", "/coord/v1/monitoring/groups", "", 200, "Groups", func(t *testing.T, r reply) {
			var gs protocol.GroupsResponse
			r.decode(t, &gs)
			require.Len(t, gs.Groups, 1)
			require.NotNil(t, gs.Groups[0].TargetAssignmentSummary)
		}},
		{"GET", mon, "", 200, "MonitorGroup orders/workers", checkGroup},
		{"GET", mon + "/members", "", 200, "Members orders/workers", func(t *testing.T, r reply) {
			var m protocol.MembersResponse
			r.decode(t, &m)
			require.Equal(t, "m1", m.Members[0].MemberID)
		}},
		{"GET", mon + "/assignments", "", 200, "Assignments orders/workers", func(t *testing.T, r reply) {
			require.Contains(t, string(r.body), `"invariantViolations":[]`)
			require.Contains(t, string(r.body), `"targetAssignment":{"m1":[{"shardIndex":0}]}`)
			require.Contains(t, string(r.body), `"revokeProgress":{}`)
			require.Contains(t, string(r.body), `"revokeDetails":[]`)
		}},
		{"GET", mon + "/consumption", "", 200, "Consumption orders/workers", func(t *testing.T, r reply) {
			require.JSONEq(t, `{"progress":[]}`, string(r.body))
		}},
		{"GET", mon + "/migrations", "", 200, "Migrations orders/workers", func(t *testing.T, r reply) {
			require.JSONEq(t, `{"migrations":[],"activeReshardingId":null}`, string(r.body))
		}},
		{"GET", "/debug/actors", "", 200, "DebugActors", func(t *testing.T, r reply) {
			require.JSONEq(t, `{"groups":["orders/g"]}`, string(r.body))
		}},
		{"GET", "/debug/streams/orders/groups/workers", "", 200, "DebugGroup orders/workers", nil},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			h := newHarness(t, Config{})
			r := h.do(tc.method, tc.path, tc.body)
			require.Equal(t, tc.status, r.status, "body: %s", r.body)
			require.Equal(t, "application/json", r.header.Get("Content-Type"))
			if tc.call == "" {
				require.Empty(t, h.fake.Calls())
			} else {
				require.Equal(t, []string{tc.call}, h.fake.Calls())
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func checkGroup(t *testing.T, r reply) {
	t.Helper()
	var g protocol.GroupResponse
	r.decode(t, &g)
	require.Equal(t, "orders", g.StreamPrefix)
	require.Equal(t, "workers", g.ConsumerGroup)
	require.Contains(t, string(r.body), `"targetAssignmentSummary":{}`)
}

// The admin bodies reach the Service intact.
func TestAdminBodiesReachService(t *testing.T) {
	h := newHarness(t, Config{})
	r := h.do("POST", "/coord/v1/streams/orders/scale", `{"targetShardCount":12,"requestedBy":"ops","reason":"peak","extra":1}`)
	require.Equal(t, 202, r.status)
	req := h.fake.last.(protocol.ScaleRequest)
	require.Equal(t, 12, *req.TargetShardCount)
	require.Equal(t, "ops", req.RequestedBy)
	require.Equal(t, "peak", req.Reason)
}

// Protocol outcomes are HTTP 200 with the status in the body; a path/body
// memberId mismatch is the Service's to answer (INVALID_REQUEST).
func TestHeartbeatProtocolOutcomesAre200(t *testing.T) {
	for _, st := range []protocol.Status{protocol.StatusRetry, protocol.StatusFencedMemberEpoch, protocol.StatusUnknownMemberID,
		protocol.StatusInvalidRequest, protocol.StatusUnsupportedProtocol, protocol.StatusSyncMetadata, protocol.StatusRevokePending,
		protocol.StatusMemberIDInUse} {
		h := newHarness(t, Config{})
		h.fake.hb = func(_, _, m string, req protocol.HeartbeatRequest) protocol.HeartbeatResponse {
			return protocol.HeartbeatResponse{ResponseTo: req.RequestID, Status: st, MemberID: m}
		}
		body := strings.Replace(hbBody, `"memberId":"10.0.3.7-m0"`, `"memberId":"other"`, 1)
		r := h.do("POST", hbPath, body)
		require.Equal(t, 200, r.status)
		var resp protocol.HeartbeatResponse
		r.decode(t, &resp)
		require.Equal(t, st, resp.Status)
	}
	// Protocol version 2 is the Service's to refuse (UNSUPPORTED_PROTOCOL), even
	// with fields the v1 edge checks would reject.
	h := newHarness(t, Config{})
	r := h.do("POST", hbPath, strings.Replace(strings.Replace(hbBody, `"protocolVersion":1`, `"protocolVersion":2`, 1), `"ownedShards":[]`, `"ownedShards":[{"shardIndex":-1}]`, 1))
	require.Equal(t, 200, r.status)
	require.Len(t, h.fake.Calls(), 1)
}

// /health is always 200 with the status in the body (the reference's
// shape, for dashboards); /ready says it with the status code (probes).
func TestHealthStatuses(t *testing.T) {
	for _, tc := range []struct {
		status, shown string
		ready         int
	}{{"UP", "UP", 200}, {"DEGRADED", "DEGRADED", 200}, {"DOWN", "DOWN", 503}, {"", "DOWN", 503}, {"WEIRD", "DOWN", 503}} {
		h := newHarness(t, Config{CoordinatorID: "cfg-node"})
		h.fake.health = protocol.HealthResponse{Status: tc.status, Redis: "DOWN", Loop: "UP"}
		r := h.do("GET", "/coord/v1/monitoring/health", "")
		require.Equal(t, 200, r.status, tc.status)
		var body map[string]any
		r.decode(t, &body)
		require.Equal(t, "cfg-node", body["coordinatorId"])
		require.Equal(t, tc.shown, body["status"])
		require.Equal(t, "DOWN", body["redis"])
		require.NotContains(t, body, "errorCode")

		r = h.do("GET", "/coord/v1/monitoring/ready", "")
		require.Equal(t, tc.ready, r.status, tc.status)
		body = nil
		r.decode(t, &body)
		require.Equal(t, tc.shown, body["status"])
		require.Equal(t, "cfg-node", body["coordinatorId"])
		if tc.ready == 503 {
			require.Equal(t, protocol.CodeUnavailable, body["errorCode"])
			require.NotEmpty(t, body["message"])
		}
	}
}

// A node that refuses to serve (another node shares its store without
// forming one cluster) is not ready, and /ready says why.
func TestReadyNodeConflict(t *testing.T) {
	h := newHarness(t, Config{})
	h.fake.health = protocol.HealthResponse{Status: "DOWN", Redis: "UP", Loop: "UP", NodeConflict: &protocol.NodeConflict{
		Refusing: true, Reason: "node n1 shares this store",
		Peers: []protocol.ConflictPeer{{NodeID: "n1", Owner: "n1/x", Provider: "single", Earlier: true}},
	}}
	r := h.do("GET", "/coord/v1/monitoring/ready", "")
	require.Equal(t, 503, r.status)
	var body map[string]any
	r.decode(t, &body)
	require.Contains(t, body["message"], "node n1 shares this store")
	require.Equal(t, true, body["nodeConflict"].(map[string]any)["refusing"])
}

func TestHeadHealth(t *testing.T) {
	h := newHarness(t, Config{})
	r := h.do("HEAD", "/coord/v1/monitoring/health", "")
	require.Equal(t, 200, r.status)
	require.Empty(t, r.body)
	require.Equal(t, 200, h.do("HEAD", "/coord/v1/monitoring/ready", "").status)
	h.fake.health.Status = "DOWN"
	require.Equal(t, 200, h.do("HEAD", "/coord/v1/monitoring/health", "").status)
	require.Equal(t, 503, h.do("HEAD", "/coord/v1/monitoring/ready", "").status)
}

func TestUnknownRouteAndMethod(t *testing.T) {
	h := newHarness(t, Config{})
	h.assertRejected(h.do("GET", "/coord/v1/nope", ""), 404, protocol.CodeNotFound)
	h.assertRejected(h.do("GET", "/", ""), 404, protocol.CodeNotFound)
	h.assertRejected(h.do("PUT", "/coord/v1/streams/orders", `{}`), 405, protocol.CodeMethodNotAllowed)
	h.assertRejected(h.do("GET", hbPath, ""), 405, protocol.CodeMethodNotAllowed)
}

func TestMetricsEndpoint(t *testing.T) {
	h := newHarness(t, Config{})
	require.Equal(t, 200, h.do("POST", hbPath, hbBody).status)
	require.Equal(t, 400, h.do("POST", hbPath, `{`).status)
	r := h.do("GET", "/metrics", "")
	require.Equal(t, 200, r.status)
	require.True(t, strings.HasPrefix(r.header.Get("Content-Type"), "text/plain"))
	text := string(r.body)
	require.Contains(t, text, `rsc_heartbeats_total{status="OK",transport="http"} 1`)
	require.Contains(t, text, `rsc_heartbeats_total{status="REJECTED",transport="http"} 1`)
	require.Contains(t, text, `rsc_heartbeat_duration_seconds_count{transport="http"} 2`)
	require.Contains(t, text, `rsc_http_requests_total{code="200",method="POST",route="/coord/v1/streams/:streamPrefix/groups/:consumerGroup/members/:memberId/heartbeat"} 1`)
	require.Contains(t, text, `go_goroutines`)
}

// The heartbeat's principal is the authenticated caller, never the body: with member
// authentication off it is empty whatever the body says; the incarnationId is passed on.
func TestHeartbeatPrincipalIsNotReadFromTheBody(t *testing.T) {
	h := newHarness(t, Config{})
	var got protocol.HeartbeatRequest
	h.fake.hb = func(_, _, m string, req protocol.HeartbeatRequest) protocol.HeartbeatResponse {
		got = req
		return protocol.HeartbeatResponse{ResponseTo: req.RequestID, Status: protocol.StatusOK, MemberID: m}
	}
	body := strings.Replace(hbBody, `"ownedShards":[]`, `"ownedShards":[],"principal":"admin","Principal":"admin","incarnationId":"p-1"`, 1)
	r := h.do("POST", hbPath, body)
	require.Equal(t, 200, r.status)
	require.Empty(t, got.Principal)
	require.Equal(t, "p-1", got.IncarnationID)
}
