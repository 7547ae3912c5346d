package api

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/api/openapi"
	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

var updateOpenAPI = flag.Bool("update-openapi", false, "rewrite api/openapi/openapi.json from the routes' huma document")

type oaOp struct {
	Role        string                     `json:"x-rsc-role"`
	RateLimited bool                       `json:"x-rsc-rate-limited"`
	Responses   map[string]json.RawMessage `json:"responses"`
}

// committedOps parses the committed document: "METHOD /openapi/{path}" → op.
func committedOps(t *testing.T) map[string]oaOp {
	t.Helper()
	var doc struct {
		OpenAPI string                     `json:"openapi"`
		Paths   map[string]map[string]oaOp `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(openapi.Committed(), &doc))
	require.Equal(t, "3.1.0", doc.OpenAPI)
	out := map[string]oaOp{}
	for p, ops := range doc.Paths {
		for m, op := range ops {
			out[strings.ToUpper(m)+" "+p] = op
		}
	}
	return out
}

func oaKey(method, fiberPath string) string {
	p, _ := openapi.Path(fiberPath)
	return method + " " + p
}

// TestOpenAPIUpToDate: the committed document is what huma derives from
// the registered routes (run by `make check`).
func TestOpenAPIUpToDate(t *testing.T) {
	h := newHarness(t, authConfig(t))
	got, err := h.srv.doc.JSON()
	require.NoError(t, err)
	if *updateOpenAPI {
		require.NoError(t, os.WriteFile("openapi/openapi.json", got, 0o644))
		return
	}
	require.Equal(t, string(got), string(openapi.Committed()),
		"api/openapi/openapi.json is stale: go test ./api -run TestOpenAPIUpToDate -update-openapi")
}

// TestOpenAPIMatchesRouter walks the real fiber router both ways: every
// registered route is in the document with its role and rate limit, and
// every documented operation is registered.
func TestOpenAPIMatchesRouter(t *testing.T) {
	h := newHarness(t, authConfig(t))
	ops := committedOps(t)
	entries := map[string]route{}
	for _, e := range h.srv.table {
		entries[e.method+" "+e.path] = e
	}
	registered := map[string]bool{}
	for _, r := range h.srv.App().GetRoutes(true) {
		if strings.HasPrefix(r.Path, "/console") { // static console files, not API
			continue
		}
		k := oaKey(r.Method, r.Path)
		registered[k] = true
		e, ok := entries[r.Method+" "+r.Path]
		require.True(t, ok, "route %s %s registered without Server.addRoute (no role recorded)", r.Method, r.Path)
		op, ok := ops[k]
		require.True(t, ok, "route %s %s is not in api/openapi.json: register it with handle or raw (typed.go) and regenerate", r.Method, r.Path)
		require.Equal(t, roleName(e.need), op.Role, "x-rsc-role of %s", k)
		require.Equal(t, e.limit != nil, op.RateLimited, "x-rsc-rate-limited of %s", k)
	}
	require.GreaterOrEqual(t, len(registered), 25)
	for k := range ops {
		require.True(t, registered[k], "api/openapi.json documents %s, which the router does not serve", k)
	}
}

// probe is one request meant to provoke a status.
type probe struct {
	path, body string
	hdr        []string
}

// concrete fills a fiber path's parameters.
func concrete(p string) string {
	r := strings.NewReplacer(":streamPrefix", "orders", ":consumerGroup", "g", ":memberId", "m-1",
		":reshardingId", "r1", ":shardIndex", "0", ":username", "grafana")
	return r.Replace(p)
}

// validBody is a body the route accepts.
func validBody(method, path string) string {
	switch {
	case strings.HasSuffix(path, "/heartbeat"):
		return `{"protocolVersion":1,"requestId":"r","memberId":"m-1","memberEpoch":0,"metadataVersion":0,"runtimeConsumerCapacity":{"runtimeMaxConcurrency":1,"availableConcurrency":1}}`
	case strings.HasSuffix(path, "/scale"):
		return `{"targetShardCount":2,"requestedBy":"ops","reason":"test"}`
	case strings.HasSuffix(path, "/assignment"):
		return `{"assignment":"capacity","requestedBy":"ops","reason":"test"}`
	case strings.HasSuffix(path, "/rebalancing"):
		return `{"paused":true,"requestedBy":"ops","reason":"test"}`
	case strings.HasSuffix(path, "/login"):
		return `{"username":"boss","password":"boss-pass"}`
	case method == fiber.MethodPost || method == fiber.MethodDelete:
		return `{"requestedBy":"ops","reason":"test"}`
	}
	return ""
}

// TestOpenAPIStatusesAreReal provokes, for every registered route, each
// answer the route can give (no or wrong credentials, stream scope, bad
// path, malformed or compressed body, rate limit, each Service error the
// route declares, a failure, a timeout, draining, health DOWN) and checks
// that the set of statuses observed is exactly the set documented.
func TestOpenAPIStatusesAreReal(t *testing.T) {
	ops := committedOps(t)
	boss := basic("boss", "boss-pass")
	base := newHarness(t, authConfig(t))
	for _, e := range base.srv.table {
		if strings.HasPrefix(e.path, "/console") { // static console files, not API
			continue
		}
		k := oaKey(e.method, e.path)
		op, ok := ops[k]
		require.True(t, ok, k)
		d := e.doc
		seen := map[int]bool{}
		send := func(h *harness, pr probe) int {
			if pr.path == "" {
				pr.path = concrete(e.path)
			}
			r := h.do(e.method, pr.path, pr.body, pr.hdr...)
			seen[r.status] = true
			return r.status
		}
		body := validBody(e.method, e.path)
		cfg := authConfig(t)
		cfg.Auth.AuthenticateMemberAPI = true
		cfg.Auth.Users = append(cfg.Auth.Users, config.User{Username: "scoped", Password: "scoped-pass", Roles: []string{"ADMIN"}, Streams: []string{"other"}})
		h := newHarness(t, cfg)
		require.Equal(t, d.OK, send(h, probe{body: body, hdr: []string{"Authorization", boss}}), k)
		send(h, probe{body: body})
		for _, u := range [][2]string{{"member", "member-pass"}, {"grafana", "grafana-pass"}, {"scoped", "scoped-pass"}} {
			send(h, probe{body: body, hdr: []string{"Authorization", basic(u[0], u[1])}})
		}
		if strings.Contains(e.path, ":") {
			send(h, probe{path: strings.Replace(concrete(e.path), "/orders", "/a%7Bb", 1), body: body, hdr: []string{"Authorization", boss}})
		}
		if body != "" {
			send(h, probe{body: "{", hdr: []string{"Authorization", boss}})
			send(h, probe{body: body, hdr: []string{"Authorization", boss, "Content-Encoding", "gzip"}})
			send(h, probe{body: body, hdr: []string{"Authorization", boss, "Content-Type", "text/plain"}})
		}
		send(h, probe{body: body, hdr: []string{"Authorization", boss, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"}})
		if strings.HasSuffix(e.path, "/login") {
			send(h, probe{body: `{"username":"boss","password":"wrong"}`})
			fl := cfg
			fl.Auth.FailedAuthPerAddressRate, fl.Auth.FailedAuthPerAddressBurst = 0.001, 1
			hf := newHarness(t, fl)
			send(hf, probe{body: `{"username":"nobody","password":"wrong"}`})
			send(hf, probe{body: `{"username":"nobody","password":"wrong"}`}) // 429: failed credentials
			send(newHarness(t, Config{}), probe{body: body})
		}
		if e.limit != nil {
			rl := cfg
			rl.Auth.AdminRateLimit, rl.Auth.AdminRateBurst = 0.001, 1
			hl := newHarness(t, rl)
			send(hl, probe{body: body, hdr: []string{"Authorization", boss}})
			send(hl, probe{body: body, hdr: []string{"Authorization", boss}})
		}
		errs := append([]error{errors.New("boom"), coordinator.ErrUnavailable}, d.Errs...)
		for _, err := range errs {
			h.fake.setErr(err)
			send(h, probe{body: body, hdr: []string{"Authorization", boss}})
		}
		h.fake.setErr(nil)
		h.fake.health.Status = protocol.HealthDown
		send(h, probe{body: body, hdr: []string{"Authorization", boss}})
		h.fake.health.Status = protocol.HealthUp
		h.srv.BeginDrain()
		send(h, probe{body: body, hdr: []string{"Authorization", boss}})

		var documented []int
		for st := range op.Responses {
			n, err := strconv.Atoi(st)
			require.NoError(t, err)
			documented = append(documented, n)
		}
		var observed []int
		for st := range seen {
			observed = append(observed, st)
		}
		sort.Ints(documented)
		sort.Ints(observed)
		require.Equal(t, documented, observed, "%s: documented statuses vs statuses the handler answered", k)
	}
}

// TestOpenAPIAndDocsServed: the document and its viewer are served without
// credentials, and the viewer loads nothing from elsewhere.
func TestOpenAPIAndDocsServed(t *testing.T) {
	h := newHarness(t, authConfig(t))
	r := h.do("GET", "/coord/v1/openapi.json", "")
	require.Equal(t, 200, r.status)
	require.JSONEq(t, string(openapi.Committed()), string(r.body))
	r = h.do("GET", "/docs", "")
	require.Equal(t, 200, r.status)
	require.Contains(t, r.header.Get("Content-Type"), "text/html")
	require.Contains(t, string(r.body), "/coord/v1/openapi.json")
	for _, external := range []string{"http://", "https://", "//cdn", "src=\"//"} {
		require.NotContains(t, string(r.body), external, "the viewer must work offline")
	}
	require.Contains(t, r.header.Get("Content-Security-Policy"), "default-src 'none'")
}

// TestOpenAPIRequiredFields: for every request body the document describes,
// a body with only its required fields is accepted, and a body missing any
// one of them is answered 400.
func TestOpenAPIRequiredFields(t *testing.T) {
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Required []string `json:"required"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(openapi.Committed(), &doc))
	base := newHarness(t, authConfig(t))
	checked := 0
	for _, e := range base.srv.table {
		d := e.doc
		if d.Req == nil {
			continue
		}
		name := reflectName(d.Req)
		required := doc.Components.Schemas[name].Required
		require.NotEmpty(t, required, name)
		var full map[string]any
		require.NoError(t, json.Unmarshal([]byte(validBody(e.method, e.path)), &full))
		minimal := map[string]any{}
		for _, f := range required {
			v, ok := full[f]
			require.True(t, ok, "%s: the sample body lacks required field %s", name, f)
			minimal[f] = v
		}
		h := newHarness(t, authConfig(t))
		boss := basic("boss", "boss-pass")
		body, _ := json.Marshal(minimal)
		require.Equal(t, d.OK, h.do(e.method, concrete(e.path), string(body), "Authorization", boss).status, "%s with only its required fields %s", name, body)
		for _, f := range required {
			less := map[string]any{}
			for k, v := range minimal {
				if k != f {
					less[k] = v
				}
			}
			body, _ := json.Marshal(less)
			require.Equal(t, 400, h.do(e.method, concrete(e.path), string(body), "Authorization", boss).status, "%s without %s", name, f)
		}
		checked++
	}
	require.Equal(t, 12, checked)
}

func reflectName(v any) string { return reflect.TypeOf(v).Name() }
