package api

import (
	"context"
	"net/http"
	"reflect"
	"slices"

	"github.com/redisstream/coordinator/api/auth"
	"github.com/redisstream/coordinator/api/edge"
	"github.com/redisstream/coordinator/api/httpx"

	"github.com/danielgtaylor/huma/v2"
	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/openapi"
)

// Typed handlers. A route's handler takes its input struct (path and query
// parameters, tagged for huma; the JSON body through withBody) and returns
// its response value. huma derives the route's OpenAPI operation from those
// types (package openapi); this adapter keeps the answers byte-for-byte what
// the server always sent: the fiber chain in front (origin, content type,
// audit, authentication, rate limit: Server.add), the path and body checks
// of params.go and validate.go, the body written with fiber's JSON, and every
// error written by writeError (errors.go). huma parses only the string path
// and query fields; it writes nothing.

// out is the huma output of a typed handler: its body type documents the
// success response.
type out[T any] struct{ Body T }

// Locals keys through which the adapter hands the fiber context to the
// huma handler and its error back.
const (
	fiberCtxKey   = "rsc.fiberCtx"
	handlerErrKey = "rsc.handlerErr"
)

// checker is an input whose path parameters are checked (and decoded)
// before the handler runs.
type checker interface{ check() error }

// bodied is an input with a JSON body (withBody).
type bodied interface {
	decode(c *fiber.Ctx) error
	bodyType() reflect.Type
}

// withBody, embedded in an input, decodes the JSON body (decodeBody) before
// the handler runs; the document's request body is B's schema.
type withBody[B any] struct{ body B }

func (w *withBody[B]) decode(c *fiber.Ctx) error { return edge.DecodeBody(c, &w.body) }
func (*withBody[B]) bodyType() reflect.Type      { return reflect.TypeFor[B]() }
func (w *withBody[B]) req() *B                   { return &w.body }

// handle registers a typed route: r says where, who and what the document
// adds; h answers with r.doc.OK and its value, or an error.
func handle[I, O any](s *Server, r route, h func(c *fiber.Ctx, in *I) (O, error)) {
	if b, ok := any(new(I)).(bodied); ok {
		r.doc.Req = reflect.Zero(b.bodyType()).Interface()
	}
	s.pending = r
	path, _ := openapi.Path(r.path)
	op := huma.Operation{Method: r.method, Path: path, DefaultStatus: r.doc.OK}
	huma.Register(s.doc, op, func(ctx context.Context, in *I) (*out[O], error) {
		c := ctx.Value(fiberCtxKey).(*fiber.Ctx)
		err := typedCall(c, in, h, r.doc.OK)
		if err != nil {
			c.Locals(handlerErrKey, err)
		}
		return nil, nil
	})
}

func typedCall[I, O any](c *fiber.Ctx, in *I, h func(*fiber.Ctx, *I) (O, error), ok int) error {
	if p, isChecker := any(in).(checker); isChecker {
		if err := p.check(); err != nil {
			return err
		}
	}
	if b, isBodied := any(in).(bodied); isBodied {
		if err := b.decode(c); err != nil {
			return err
		}
	}
	v, err := h(c, in)
	if err != nil {
		return err
	}
	return c.Status(ok).JSON(v)
}

// raw registers a plain fiber route (heartbeat with its hand-tuned codec,
// ready with its own 503 body, text and HTML pages) and documents it from
// r.doc: huma is not in its path.
func (s *Server) raw(r route, h fiber.Handler) {
	s.pending = r
	s.addRoute(r, h)
	path, _ := openapi.Path(r.path)
	op := &huma.Operation{Method: r.method, Path: path, Responses: map[string]*huma.Response{}}
	ok := &huma.Response{Description: http.StatusText(r.doc.OK)}
	if r.doc.Resp != nil && r.method != fiber.MethodHead {
		ct := r.doc.ContentType
		if ct == "" {
			ct = fiber.MIMEApplicationJSON
		}
		ok.Content = map[string]*huma.MediaType{ct: {Schema: s.schemaOf(r.doc.Resp)}}
	}
	op.Responses[openapiStatus(r.doc.OK)] = ok
	s.doc.DocumentOperation(op)
}

// humaRouter is the fiber.Router huma registers typed routes through: it
// puts the route's fiber chain (Server.add) in front of huma's handler and
// turns the error the typed handler returned into the fiber error that
// writeError answers.
type humaRouter struct {
	fiber.Router
	s *Server
}

func (hr humaRouter) Add(method, path string, handlers ...fiber.Handler) fiber.Router {
	h := handlers[len(handlers)-1]
	hr.s.addRoute(hr.s.pending, func(c *fiber.Ctx) error {
		c.Locals(fiberCtxKey, c)
		_ = h(c) // humafiber's handler always returns nil
		if err, ok := c.Locals(handlerErrKey).(error); ok {
			return err
		}
		return nil
	})
	return hr.Router
}

// describe completes an operation huma derived (openapi.Doc.Describe):
// summary, tag, role, rate limit, security, request body and every status
// the route answers (statuses: route_status.go).
func (s *Server) describe(op *huma.Operation) {
	r := s.pending
	d := r.doc
	op.Summary, op.Tags, op.OperationID = d.Summary, []string{d.Tag}, openapi.OperationID(r.method, r.path)
	op.Extensions = map[string]any{"x-rsc-role": roleName(r.need)}
	if r.limit != nil {
		op.Extensions["x-rsc-rate-limited"] = true
		op.Extensions["x-rsc-audited"] = true
	}
	op.Security = []map[string][]string{}
	if r.need != auth.AccessPublic {
		op.Security = []map[string][]string{{"basic": {}}, {"bearer": {}}}
	}
	op.RequestBody = nil
	if d.Req != nil {
		op.RequestBody = &huma.RequestBody{Required: !d.ReqOptional, Content: map[string]*huma.MediaType{
			fiber.MIMEApplicationJSON: {Schema: s.schemaOf(d.Req)}}}
	}
	_, params := openapi.Path(r.path)
	for _, name := range params {
		s.param(op, &huma.Param{Name: name, In: "path", Required: true, Description: paramDescription(name), Schema: &huma.Schema{Type: "string"}})
	}
	for _, q := range d.Query {
		s.param(op, &huma.Param{Name: q.Name, In: "query", Description: q.Description, Schema: &huma.Schema{Type: q.Type}})
	}
	head := r.method == fiber.MethodHead
	for _, st := range statuses(d, r.method, r.need, r.limit != nil, params) {
		if st == d.OK {
			if head {
				op.Responses[openapiStatus(st)].Content = nil
			}
			continue
		}
		op.Responses[openapiStatus(st)] = s.doc.ErrorResponse(st, httpx.StatusName(st), head)
	}
}

// param documents p on op, in place of what huma derived from the input's
// field (a string): the description and type the server checks.
func (s *Server) param(op *huma.Operation, p *huma.Param) {
	i := slices.IndexFunc(op.Parameters, func(q *huma.Param) bool { return q.Name == p.Name && q.In == p.In })
	if i < 0 {
		op.Parameters = append(op.Parameters, p)
		return
	}
	op.Parameters[i] = p
}

// schemaOf is the schema of a documented value: a schemaObj literal or a
// Go value's type.
func (s *Server) schemaOf(v any) *huma.Schema {
	if lit, ok := v.(*huma.Schema); ok {
		return lit
	}
	return s.doc.Schema(reflect.TypeOf(v))
}
