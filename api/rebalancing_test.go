package api

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

const rebalancingPath = "/coord/v1/streams/orders/groups/workers/rebalancing"

// Bad bodies for POST …/rebalancing are refused before the Service is called,
// with a message naming the field and the JSON shape expected.
func TestBadRebalancingInput(t *testing.T) {
	cases := []struct {
		name, body, code string
		mentions         []string
	}{
		{"no paused", `{"requestedBy":"ops","reason":"deploy"}`, protocol.CodeInvalidArgument, []string{"paused is required", `"paused": true|false`}},
		{"typo in paused", `{"pause":true,"requestedBy":"ops"}`, "", []string{"paused"}},
		{"null body", `null`, protocol.CodeInvalidArgument, []string{"paused is required"}},
		{"paused as a string", `{"paused":"yes","requestedBy":"ops"}`, protocol.CodeMalformedRequest, []string{"paused"}},
		{"paused as a number", `{"paused":1,"requestedBy":"ops"}`, protocol.CodeMalformedRequest, []string{"paused"}},
		{"no requestedBy", `{"paused":true}`, protocol.CodeInvalidArgument, []string{"requestedBy is required", `"paused": true|false`}},
		{"blank requestedBy", `{"paused":false,"requestedBy":"  "}`, protocol.CodeInvalidArgument, []string{"requestedBy"}},
		{"control character", `{"paused":true,"requestedBy":"ops\nfake log"}`, protocol.CodeInvalidArgument, []string{"requestedBy"}},
		{"empty body", ``, protocol.CodeMalformedRequest, nil},
		{"array", `[true]`, protocol.CodeMalformedRequest, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			r := h.do("POST", rebalancingPath, tc.body)
			require.Equal(t, 400, r.status, "%s", r.body)
			e := r.errorBody(t)
			if tc.code != "" {
				require.Equal(t, tc.code, e.ErrorCode, e.Message)
			}
			for _, m := range tc.mentions {
				require.Contains(t, e.Message, m)
			}
			require.NotContains(t, e.Message, "protocol.", "no Go type names")
			require.NotContains(t, e.Message, "*bool", "no Go type names")
			require.Empty(t, h.fake.Calls(), "service must not be called")
		})
	}
}

// A pause reaches the Service as sent and answers the group with
// rebalancing "paused", who and why; a resume answers "active". Both are
// admin mutations: WRITE may, READ may not, and both are audited.
func TestRebalancingRoute(t *testing.T) {
	h := newHarness(t, Config{})
	r := h.do("POST", rebalancingPath, `{"paused":true,"requestedBy":"alice","reason":"deploy"}`)
	require.Equal(t, 200, r.status, "%s", r.body)
	var g protocol.GroupResponse
	require.NoError(t, json.Unmarshal(r.body, &g))
	require.Equal(t, protocol.RebalancingPaused, g.Rebalancing)
	require.Equal(t, "alice", g.RebalancingPause.RequestedBy)
	require.Equal(t, "deploy", g.RebalancingPause.Reason)
	require.Equal(t, []string{"SetRebalancing orders/workers"}, h.fake.Calls())

	r = h.do("POST", rebalancingPath, `{"paused":false,"requestedBy":"alice"}`)
	require.Equal(t, 200, r.status, "%s", r.body)
	require.JSONEq(t, `"active"`, mustField(t, string(r.body), "rebalancing"))
	require.NotContains(t, string(r.body), "rebalancingPause")

	sink := &sinkRecorder{}
	h = newHarness(t, authConfig(t), WithAuditSink(sink))
	body := `{"paused":true,"requestedBy":"alice","reason":"incident 42"}`
	require.Equal(t, 403, h.do("POST", rebalancingPath, body, "Authorization", basic("grafana", "grafana-pass")).status)
	require.Equal(t, 200, h.do("POST", rebalancingPath, body, "Authorization", basic("admin", "admin-pass")).status)
	lines := auditLines(h)
	require.Len(t, lines, 2, h.logs.String())
	require.Contains(t, lines[1], "caller.requestedBy=alice")
	require.Contains(t, lines[1], `caller.reason="incident 42"`)
	require.Contains(t, lines[1], "route=/coord/v1/streams/:streamPrefix/groups/:consumerGroup/rebalancing")
}

func mustField(t *testing.T, body, field string) string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(body), &m))
	return string(m[field])
}
