package api

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// The OpenAPI 3.1 document (openapi.json, committed and embedded) is
// generated from the route table (routes.go: path, method, role, rate limit)
// and routeDocs (openapi_routes.go: summary, bodies, Service errors), with
// JSON schemas read from the protocol types by reflection. The committed
// file must equal what buildOpenAPI produces (TestOpenAPIUpToDate; rewrite
// it with `go test ./api -run TestOpenAPIUpToDate -update-openapi`).
//
// Extensions: x-rsc-role on every operation (PUBLIC, READ, WRITE, MEMBER,
// READ_OR_MEMBER, ANY_ROLE, ADMIN; MEMBER and ANY_ROLE routes are public when
// auth.authenticate-member-api is off), x-rsc-rate-limited and x-rsc-audited
// on admin mutations and login.

// roleName is the x-rsc-role of an access level.
func roleName(a access) string {
	switch a {
	case accessRead:
		return "READ"
	case accessWrite:
		return "WRITE"
	case accessMember:
		return "MEMBER"
	case accessRouting:
		return "READ_OR_MEMBER"
	case accessProtocol:
		return "ANY_ROLE"
	case accessAdmin:
		return "ADMIN"
	}
	return "PUBLIC"
}

// openAPIPath turns a fiber path (/streams/:streamPrefix) into an OpenAPI
// path template (/streams/{streamPrefix}) and lists its parameters.
func openAPIPath(p string) (string, []string) {
	segs := strings.Split(p, "/")
	var params []string
	for i, s := range segs {
		if name, ok := strings.CutPrefix(s, ":"); ok {
			segs[i] = "{" + name + "}"
			params = append(params, name)
		}
	}
	return strings.Join(segs, "/"), params
}

// docKey is the routeDocs key of a route.
func docKey(method, path string) string { return method + " " + path }

// statuses are the HTTP statuses a route can answer, derived from what it
// does; TestOpenAPIStatusesAreReal provokes each of them.
func (d opDoc) statuses(method string, need access, limited bool, params []string) []int {
	set := map[int]bool{d.ok: true}
	if method != fiber.MethodGet && method != fiber.MethodHead || d.crossOriginGuard {
		set[http.StatusForbidden] = true // a cross-origin browser request (origin.go)
	}
	if len(params) > 0 || d.req != nil || len(d.query) > 0 {
		set[http.StatusBadRequest] = true
	}
	if d.req != nil {
		set[http.StatusUnsupportedMediaType] = true
	}
	if need != accessPublic {
		set[http.StatusUnauthorized] = true
		// 403: a role some users lack, or a stream outside the user's
		// auth.users[].streams. Every user has some role, so a route open to
		// any role that names no stream never answers 403.
		if need != accessProtocol || slices.Contains(params, "streamPrefix") {
			set[http.StatusForbidden] = true
		}
	}
	if limited {
		set[http.StatusTooManyRequests] = true
	}
	for _, e := range d.errs {
		set[coordinator.AnswerFor(e).Status] = true
	}
	for _, s := range d.extra {
		set[s] = true
	}
	if d.service {
		set[http.StatusInternalServerError] = true
		set[http.StatusServiceUnavailable] = true // timeout, store unavailable, shutting down
	}
	out := make([]int, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Ints(out)
	return out
}

// requestRequired are the fields the server requires in each request body
// (validate.go, protocol.DecodeHeartbeat); the Go types' tags describe what
// responses always carry, not what requests must.
var requestRequired = map[string][]string{
	"HeartbeatRequest":    {"memberEpoch", "memberId", "metadataVersion", "protocolVersion", "requestId", "runtimeConsumerCapacity"},
	"CreateStreamRequest": {"requestedBy"},
	"CreateGroupRequest":  {"requestedBy"},
	"DeleteGroupRequest":  {"requestedBy"},
	"DeleteStreamRequest": {"requestedBy"},
	"ScaleRequest":        {"requestedBy", "targetShardCount"},
	"RollbackRequest":     {"requestedBy"},
	"LoginRequest":        {"password", "username"},
	"RevokeTokensRequest": {"requestedBy"},
}

// buildOpenAPI renders the document for a route table. Routes missing from
// routeDocs are left out (the test reports them).
func buildOpenAPI(table []routeEntry, version string) ([]byte, error) {
	sg := &schemaGen{defs: map[string]any{}}
	errRef := sg.schema(reflect.TypeOf(protocol.ErrorBody{}))
	paths := map[string]map[string]any{}
	for _, r := range table {
		d, ok := routeDocs[docKey(r.method, r.path)]
		if !ok {
			continue
		}
		p, params := openAPIPath(r.path)
		op := map[string]any{
			"summary":     d.summary,
			"operationId": operationID(r.method, r.path),
			"tags":        []string{d.tag},
			"x-rsc-role":  roleName(r.need),
		}
		if r.limited {
			op["x-rsc-rate-limited"] = true
			op["x-rsc-audited"] = true
		}
		if r.need != accessPublic {
			op["security"] = []any{map[string]any{"basic": []string{}}, map[string]any{"bearer": []string{}}}
		} else {
			op["security"] = []any{}
		}
		var ps []any
		for _, name := range params {
			ps = append(ps, map[string]any{"name": name, "in": "path", "required": true,
				"description": paramDescription(name), "schema": map[string]any{"type": "string"}})
		}
		for _, q := range d.query {
			ps = append(ps, map[string]any{"name": q.name, "in": "query", "required": q.required,
				"description": q.description, "schema": map[string]any{"type": q.typ}})
		}
		if len(ps) > 0 {
			op["parameters"] = ps
		}
		if d.req != nil {
			op["requestBody"] = map[string]any{
				"required": !d.reqOptional,
				"content":  map[string]any{"application/json": map[string]any{"schema": sg.value(d.req)}},
			}
		}
		responses := map[string]any{}
		for _, st := range d.statuses(r.method, r.need, r.limited, params) {
			key := itoa(st)
			if st == d.ok {
				resp := map[string]any{"description": http.StatusText(st)}
				if d.resp != nil && r.method != fiber.MethodHead {
					ct := d.contentType
					if ct == "" {
						ct = "application/json"
					}
					resp["content"] = map[string]any{ct: map[string]any{"schema": sg.value(d.resp)}}
				}
				responses[key] = resp
				continue
			}
			resp := map[string]any{"description": http.StatusText(st) + " (" + statusName(st) + ")"}
			if r.method != fiber.MethodHead {
				resp["content"] = map[string]any{"application/json": map[string]any{"schema": errRef}}
			}
			responses[key] = resp
		}
		op["responses"] = responses
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		paths[p][strings.ToLower(r.method)] = op
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Redis Stream Coordinator",
			"version":     version,
			"description": "Coordinator of Redis Stream shard ownership (KIP-848 style rebalancing). Every non-2xx answer is {status, errorCode, message}. x-rsc-role names the role an operation needs (MEMBER and ANY_ROLE are public when auth.authenticate-member-api is off; every route is public when no users are configured).",
			"license":     map[string]any{"name": "Apache-2.0", "identifier": "Apache-2.0"},
		},
		"paths": paths,
		"components": map[string]any{
			"schemas": sg.defs,
			"securitySchemes": map[string]any{
				"basic":  map[string]any{"type": "http", "scheme": "basic"},
				"bearer": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description": "from POST /coord/v1/auth/login"},
			},
		},
	}
	for name, req := range requestRequired {
		if def, ok := sg.defs[name].(map[string]any); ok {
			def["required"] = req
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func paramDescription(name string) string {
	switch name {
	case "streamPrefix":
		return "stream prefix, URL-escaped (non-blank UTF-8, no control characters, no braces)"
	case "consumerGroup":
		return "consumer group name, URL-escaped"
	case "memberId":
		return "member id, URL-escaped; must equal the body's memberId"
	case "reshardingId":
		return "migration id"
	case "shardIndex":
		return "shard index, 0 ≤ shardIndex < shardCount"
	}
	return name
}

// operationID is a stable identifier: method and the literal path segments.
func operationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, s := range strings.Split(path, "/") {
		if s == "" || s == "coord" || s == "v1" {
			continue
		}
		s = strings.TrimPrefix(s, ":")
		for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '.' || r == '_' }) {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// schemaGen turns Go types into JSON Schema (2020-12, as OpenAPI 3.1 uses);
// named struct types become components/schemas entries.
type schemaGen struct{ defs map[string]any }

func (g *schemaGen) value(v any) any {
	if s, ok := v.(schemaObj); ok {
		return s
	}
	return g.schema(reflect.TypeOf(v))
}

func (g *schemaGen) schema(t reflect.Type) any {
	switch t.Kind() {
	case reflect.Pointer:
		inner := g.schema(t.Elem())
		if m, ok := inner.(map[string]any); ok {
			if ty, ok := m["type"].(string); ok {
				cp := map[string]any{}
				for k, v := range m {
					cp[k] = v
				}
				cp["type"] = []string{ty, "null"}
				return cp
			}
		}
		return map[string]any{"anyOf": []any{inner, map[string]any{"type": "null"}}}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		name := t.Name()
		ref := map[string]any{"$ref": "#/components/schemas/" + name}
		if _, done := g.defs[name]; done {
			return ref
		}
		g.defs[name] = nil // placeholder against recursion
		props := map[string]any{}
		var required []string
		g.fields(t, props, &required)
		def := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			sort.Strings(required)
			def["required"] = required
		}
		g.defs[name] = def
		return ref
	}
	return map[string]any{}
}

// fields adds t's JSON fields (embedded structs flattened) to props.
func (g *schemaGen) fields(t reflect.Type, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			g.fields(f.Type, props, required)
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = g.schema(f.Type)
		if !strings.Contains(opts, "omitempty") && f.Type.Kind() != reflect.Pointer {
			*required = append(*required, name)
		}
	}
}
