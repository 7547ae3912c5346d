package api

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/redisstream/coordinator/api/edge"
	"github.com/redisstream/coordinator/api/httpx"

	"github.com/valyala/fasthttp"

	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// direct serves one request through the app's handler without a connection
// (fast enough for fuzzing and benchmarks). The body limit is not applied
// here: fasthttp enforces it while reading from a connection.
type direct struct {
	h   fasthttp.RequestHandler
	ctx fasthttp.RequestCtx
}

func newDirect(h *harness) *direct { return &direct{h: h.srv.App().Handler()} }

func (d *direct) serve(method, path string, body []byte, hdr ...string) (int, []byte) {
	d.ctx.Request.Reset()
	d.ctx.Response.Reset()
	d.ctx.Request.Header.SetMethod(method)
	d.ctx.Request.SetRequestURI(path)
	d.ctx.Request.Header.SetContentType("application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		d.ctx.Request.Header.Set(hdr[i], hdr[i+1])
	}
	d.ctx.Request.SetBody(body)
	d.h(&d.ctx)
	return d.ctx.Response.StatusCode(), d.ctx.Response.Body()
}

// checkAnswer fails on a 5xx, or a non-2xx whose body is not the SPEC
// error body.
func checkAnswer(t *testing.T, status int, body []byte, ct string) {
	t.Helper()
	if status >= 500 {
		t.Fatalf("5xx for client input: %d %s", status, body)
	}
	if ct != "application/json" {
		t.Fatalf("content type %q", ct)
	}
	if status >= 300 {
		var e protocol.ErrorBody
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil || e.Status != httpx.StatusName(status) || e.ErrorCode == "" || e.Message == "" {
			t.Fatalf("bad error body for %d: %s (%v)", status, body, err)
		}
	}
}

// FuzzAdminDecode sends arbitrary bodies to every admin mutation and login:
// never a 5xx or panic; 4xx answers carry the SPEC error body and leave the
// Service uncalled; accepted bodies satisfy the documented limits.
func FuzzAdminDecode(f *testing.F) {
	for _, s := range []string{
		`{"initialShardCount":4,"requestedBy":"ops","reason":"new"}`,
		`{"targetShardCount":0,"requestedBy":"ops","reason":"drain"}`,
		`{"requestedBy":"ops","reason":"gone","force":true}`,
		`{"username":"admin","password":"admin-pass"}`,
		`{"initialShardCount":-1}`, `{"targetShardCount":1e309}`, `null`, `[]`, `{"requestedBy":"\u0000"}`, ``, `{`,
	} {
		f.Add([]byte(s))
	}
	cfg := authConfig(f)
	cfg.Auth.AdminRateLimit, cfg.Auth.AdminRateBurst = 1e9, 1_000_000 // never 429
	h := newHarness(f, cfg)
	maxShards := config.Default().Resharding.MaxShardCount
	d := newDirect(h)
	admin := basic("admin", "admin-pass")
	routes := []struct{ method, path string }{
		{"POST", "/coord/v1/streams/orders"},
		{"DELETE", "/coord/v1/streams/orders/groups/g"},
		{"POST", "/coord/v1/streams/orders/scale"},
		{"POST", "/coord/v1/streams/orders/groups/g/migrations/rs1/rollback"},
		{"POST", "/coord/v1/auth/login"},
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, rt := range routes {
			h.fake.mu.Lock()
			h.fake.calls, h.fake.last = nil, nil
			h.fake.mu.Unlock()
			status, resp := d.serve(rt.method, rt.path, body, "Authorization", admin)
			checkAnswer(t, status, resp, string(d.ctx.Response.Header.ContentType()))
			calls := h.fake.Calls()
			if status >= 300 && len(calls) != 0 {
				t.Fatalf("%s %s: rejected (%d) but the service was called", rt.method, rt.path, status)
			}
			switch req := h.fake.last.(type) {
			case protocol.CreateStreamRequest:
				if strings.TrimSpace(req.RequestedBy) == "" || (req.InitialShardCount != nil && (*req.InitialShardCount < 1 || *req.InitialShardCount > maxShards)) {
					t.Fatalf("create accepted %+v", req)
				}
			case protocol.ScaleRequest:
				if strings.TrimSpace(req.RequestedBy) == "" || req.TargetShardCount == nil || *req.TargetShardCount < 0 || *req.TargetShardCount > maxShards {
					t.Fatalf("scale accepted %+v", req)
				}
			case protocol.DeleteGroupRequest:
				if strings.TrimSpace(req.RequestedBy) == "" {
					t.Fatalf("delete accepted %+v", req)
				}
			case protocol.RollbackRequest:
				if strings.TrimSpace(req.RequestedBy) == "" {
					t.Fatalf("rollback accepted %+v", req)
				}
			}
		}
	})
}

// FuzzHeartbeatRoute sends arbitrary bodies (and member ids) through the real
// heartbeat handler with a fake Service: never a 5xx or panic; rejected
// requests never reach the Service; accepted v1 requests passed the edge
// checks (no negative or duplicate shards, known revocation states).
func FuzzHeartbeatRoute(f *testing.F) {
	f.Add([]byte(hbBody), "10.0.3.7-m0")
	f.Add([]byte(hb(`"ownedShards":[]`, `"ownedShards":[{"shardIndex":0},{"shardIndex":0}]`)), "m")
	f.Add([]byte(hb(`"revokingShards":[]`, `"revokingShards":[{"shard":{"shardIndex":3},"state":"REVOKED","inFlight":0,"ackedAt":null}]`)), "fe80::1")
	f.Add([]byte(hb(`"memberEpoch":0`, `"memberEpoch":-1`)), "%7B")
	f.Add([]byte(`{"protocolVersion":1}`), "")
	f.Add([]byte(`{"protocolVersion":1e400}`), "a%2Fb")
	h := newHarness(f, Config{})
	d := newDirect(h)
	f.Fuzz(func(t *testing.T, body []byte, member string) {
		h.fake.mu.Lock()
		h.fake.calls, h.fake.last = nil, nil
		h.fake.mu.Unlock()
		path := "/coord/v1/streams/orders/groups/workers/members/" + member + "/heartbeat"
		status, resp := d.serve("POST", path, body)
		if status == 404 || status == 405 { // member made the path another route
			return
		}
		checkAnswer(t, status, resp, string(d.ctx.Response.Header.ContentType()))
		calls := h.fake.Calls()
		if status != 200 {
			if len(calls) != 0 {
				t.Fatalf("rejected (%d) but the service was called", status)
			}
			return
		}
		req := h.fake.last.(protocol.HeartbeatRequest)
		if req.ProtocolVersion == protocol.Version {
			if err := edge.Heartbeat(&req); err != nil {
				t.Fatalf("accepted a request the edge refuses: %v", err)
			}
		}
	})
}
