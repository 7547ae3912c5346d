package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humafiber"
	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Version is the document's info.version: the HTTP API's version, not the
// build's.
const Version = "1.0.0"

const description = "Coordinator of Redis Stream shard ownership (KIP-848 style rebalancing). Every non-2xx answer is {status, errorCode, message}. x-rsc-role names the role an operation needs (MEMBER and ANY_ROLE are public when auth.authenticate-member-api is off; every route is public when no users are configured)."

// Doc is the huma API of one server: routes registered with huma.Register
// on it are added to router (a fiber.Router whose Add the caller may wrap
// to put its own handlers in front) and described in the document.
type Doc struct {
	huma.API
	// Describe, when set, completes each operation as it is registered
	// (roles, error statuses, …).
	Describe func(op *huma.Operation)
}

// New returns the huma API for app, registering through router (app itself
// or a wrapper of it). huma serves nothing of its own (no /openapi, /docs,
// /schemas routes) and adds no $schema fields or Link headers.
func New(app *fiber.App, router fiber.Router) *Doc {
	cfg := huma.DefaultConfig("Redis Stream Coordinator", Version)
	cfg.OpenAPIPath, cfg.DocsPath, cfg.SchemasPath = "", "", ""
	cfg.CreateHooks = nil
	// Request bodies may carry fields this version does not know, and
	// responses may grow: no additionalProperties:false.
	cfg.AllowAdditionalPropertiesByDefault = true
	cfg.Info.Description = description
	cfg.Info.License = &huma.License{Name: "Apache-2.0", Identifier: "Apache-2.0"}
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"basic":  {Type: "http", Scheme: "basic"},
		"bearer": {Type: "http", Scheme: "bearer", BearerFormat: "JWT", Description: "from POST /coord/v1/auth/login"},
	}
	return &Doc{API: humafiber.NewWithGroup(app, router, cfg)}
}

// DocumentOperation is huma's hook (huma.OperationDocumenter): complete the
// operation, then add it to the document.
func (d *Doc) DocumentOperation(op *huma.Operation) {
	delete(op.Responses, "default") // every error status is listed (Describe)
	if d.Describe != nil {
		d.Describe(op)
	}
	d.OpenAPI().AddOperation(op)
}

// Schema is the JSON schema of t, registered under components/schemas
// when t is a named struct.
func (d *Doc) Schema(t reflect.Type) *huma.Schema {
	return d.OpenAPI().Components.Schemas.Schema(t, true, t.Name())
}

// ErrorResponse is the response of an error status: its reason, the
// upper-snake name its body carries, and the {status, errorCode, message}
// body (none for HEAD).
func (d *Doc) ErrorResponse(status int, name string, head bool) *huma.Response {
	r := &huma.Response{Description: http.StatusText(status) + " (" + name + ")"}
	if !head {
		r.Content = map[string]*huma.MediaType{"application/json": {Schema: d.Schema(reflect.TypeFor[protocol.ErrorBody]())}}
	}
	return r
}

// Require sets the required fields of the named request schemas: what the
// server requires in each body, which the Go types' tags (what responses
// always carry) do not say.
func (d *Doc) Require(required map[string][]string) {
	schemas := d.OpenAPI().Components.Schemas.Map()
	for name, fields := range required {
		if s, ok := schemas[name]; ok {
			s.Required = fields
		}
	}
}

// Field is what the document says of one property of a schema beyond its Go
// type: its meaning and, for a closed set of values, the values.
type Field struct {
	Description string
	Enum        []any
}

// Annotate sets the description (and enum) of properties of the named
// schemas. A schema or property that does not exist is an error: the
// annotation went stale when a type changed.
func (d *Doc) Annotate(fields map[string]map[string]Field) error {
	schemas := d.OpenAPI().Components.Schemas.Map()
	for name, props := range fields {
		s, ok := schemas[name]
		if !ok {
			return fmt.Errorf("openapi: annotated schema %s does not exist", name)
		}
		for prop, f := range props {
			p, ok := s.Properties[prop]
			if !ok {
				return fmt.Errorf("openapi: schema %s has no property %s to annotate", name, prop)
			}
			p.Description, p.Enum = f.Description, f.Enum
		}
	}
	return nil
}

// JSON renders the document, indented, with a final newline. huma's own
// error model is left out: no route answers with it.
func (d *Doc) JSON() ([]byte, error) {
	schemas := d.OpenAPI().Components.Schemas.Map()
	delete(schemas, "ErrorModel")
	delete(schemas, "ErrorDetail")
	raw, err := json.Marshal(d.OpenAPI())
	if err != nil {
		return nil, err
	}
	var v any // re-indent with sorted keys: a stable, reviewable file
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// OperationID is a stable identifier: method and the literal path segments
// (getStreamsStreamPrefixGroupsConsumerGroup).
func OperationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, s := range strings.Split(path, "/") {
		if s == "" || s == "coord" || s == "v1" {
			continue
		}
		s = strings.Trim(strings.TrimPrefix(s, ":"), "{}")
		for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '.' || r == '_' }) {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// Path turns a fiber path (/streams/:streamPrefix) into an OpenAPI path
// template (/streams/{streamPrefix}) and lists its parameters.
func Path(p string) (string, []string) {
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
