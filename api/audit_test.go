package api

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

type sinkRecorder struct {
	mu   sync.Mutex
	recs []AuditRecord
}

func (s *sinkRecorder) Audit(r AuditRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, r)
}

// auditLines returns the "audit" lines of the harness log as key=value maps
// (text handler).
func auditLines(h *harness) []string {
	var out []string
	for _, l := range strings.Split(h.logs.String(), "\n") {
		if strings.Contains(l, "msg=audit ") {
			out = append(out, l)
		}
	}
	return out
}

func TestAuditAdminMutationsAndLogins(t *testing.T) {
	sink := &sinkRecorder{}
	h := newHarness(t, authConfig(t), WithAuditSink(sink))
	body := `{"requestedBy":"alice","reason":"new team"}`
	r := h.do("POST", "/coord/v1/streams/orders/groups/billing", body,
		"Authorization", basic("admin", "admin-pass"), HeaderRequestID, "req-42")
	require.Equal(t, 201, r.status)
	require.Equal(t, "req-42", r.header.Get(HeaderRequestID))

	// A read is not audited; a refused mutation is; a login is, without its password.
	require.Equal(t, 200, h.do("GET", "/coord/v1/monitoring/groups", "", "Authorization", basic("grafana", "grafana-pass")).status)
	require.Equal(t, 403, h.do("DELETE", "/coord/v1/streams/orders/groups/billing", body, "Authorization", basic("grafana", "grafana-pass")).status)
	lr := h.do("POST", "/coord/v1/auth/login", `{"username":"admin","password":"admin-pass"}`)
	require.Equal(t, 200, lr.status)
	gen := lr.header.Get(HeaderRequestID)
	require.Len(t, gen, 32, "a generated request id")
	require.Equal(t, 401, h.do("POST", "/coord/v1/auth/login", `{"username":"nobody","password":"x"}`).status)

	lines := auditLines(h)
	require.Len(t, lines, 4, h.logs.String())
	require.Contains(t, lines[0], "principal=admin")
	require.Contains(t, lines[0], "caller.requestId=req-42")
	require.Contains(t, lines[0], `caller.reason="new team"`)
	require.Contains(t, lines[0], "caller.requestedBy=alice")
	require.Contains(t, lines[0], "status=201 result=ok")
	require.Contains(t, lines[0], "route=/coord/v1/streams/:streamPrefix/groups/:consumerGroup")
	require.NotContains(t, h.logs.String(), "bodySha256", "no secret-derived value")
	require.Contains(t, lines[1], "principal=grafana") // authenticated, without the role: refused under its own name
	require.Contains(t, lines[1], "status=403 result=denied")
	require.Contains(t, lines[2], "principal=admin")
	require.Contains(t, lines[2], "caller.requestId="+gen)
	require.Contains(t, lines[3], "principal=anonymous", "an unknown username is not logged")
	require.NotContains(t, h.logs.String(), "admin-pass")
	require.NotContains(t, h.logs.String(), "nobody")

	sink.mu.Lock()
	defer sink.mu.Unlock()
	require.Len(t, sink.recs, 4)
	require.Equal(t, "req-42", sink.recs[0].RequestID)
	require.Equal(t, 201, sink.recs[0].Status)
	require.Equal(t, "denied", sink.recs[1].Result)
}

func TestRequestIDReachesService(t *testing.T) {
	h := newHarness(t, Config{})
	r := h.do("POST", "/coord/v1/streams/orders/groups/g", `{"requestedBy":"a"}`, HeaderRequestID, "abc-1")
	require.Equal(t, 201, r.status)
	require.Equal(t, "abc-1", r.header.Get(HeaderRequestID))
	h.fake.mu.Lock()
	require.Equal(t, "abc-1", h.fake.requestID, "the Service's context carries the request id")
	h.fake.mu.Unlock()
	// Invalid ids (spaces, too long) are replaced by generated ones.
	for _, bad := range []string{"has space", strings.Repeat("x", 129)} {
		r = h.do("GET", "/coord/v1/monitoring/groups", "", HeaderRequestID, bad)
		require.Len(t, r.header.Get(HeaderRequestID), 32)
	}
}

func TestHeartbeatAdoptsBodyRequestID(t *testing.T) {
	h := newHarness(t, Config{})
	r := h.do("POST", hbPath, hbBody)
	require.Equal(t, 200, r.status)
	require.Equal(t, "r-1", r.header.Get(HeaderRequestID), "the member's requestId")
	r = h.do("POST", hbPath, hbBody, HeaderRequestID, "from-header")
	require.Equal(t, "from-header", r.header.Get(HeaderRequestID), "the header wins")
}
