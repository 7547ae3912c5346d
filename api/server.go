package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redisstream/coordinator/api/auth"
	"github.com/redisstream/coordinator/api/edge"
	"github.com/redisstream/coordinator/api/freshconn"
	"github.com/redisstream/coordinator/api/httpx"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/api/openapi"
	"github.com/redisstream/coordinator/api/routedocs"
	"github.com/redisstream/coordinator/coordinator"
)

// Server is the coordinator's HTTP front: a fiber app with the routes of
// SPEC §5, authentication, rate limiting, metrics and the error mapping.
// It decodes, validates and authorizes; every decision is the Service's.
type Server struct {
	cfg       Config
	svc       coordinator.Service
	app       *fiber.App
	log       *slog.Logger
	guard     *auth.Guard   // authentication, roles, scopes, rate limits, audit
	origins   *originPolicy // origin.go
	metrics   *metrics.Metrics
	now       func() time.Time
	addr      atomic.Pointer[net.Addr]
	ln        atomic.Pointer[freshconn.Listener] // set by Serve; cut by Shutdown
	table     []route                            // every route, in registration order (routes.go)
	doc       *openapi.Doc                       // the routes' OpenAPI document (typed.go)
	pending   route                              // the route being registered (typed.go)
	auditSink AuditSink                          // options.go; nil: audit to the log only
	drain     drainState                         // drain.go
	genStore  TokenGenerations                   // tokengen.go; nil: tokens cannot be revoked
	admin     *admin                             // handler groups, set up by routes (routes.go)
	browse    *browse
	mon       *monitoring
}

// Option customises a Server.
type Option func(*Server)

// WithMetrics records into m instead of metrics.Default (tests).
func WithMetrics(m *metrics.Metrics) Option { return func(s *Server) { s.metrics = m } }

// WithClock sets the clock used for token expiry and rate limiting (tests).
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// New builds the server. It panics if cfg.Validate() fails: validate the
// configuration at start-up, before calling New. With no users configured,
// authentication is off and New logs a warning that this is for development
// only.
func New(cfg Config, svc coordinator.Service, opts ...Option) *Server {
	if err := cfg.Validate(); err != nil {
		panic(fmt.Sprintf("api.New: invalid config: %v", err))
	}
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, svc: svc, log: cfg.Logger, metrics: metrics.Default, now: time.Now, origins: newOriginPolicy(cfg.AllowedOrigins)}
	for _, o := range opts {
		o(s)
	}
	s.guard = auth.New(auth.Config{Auth: cfg.Auth, AuditRefusalWindow: cfg.AuditRefusalWindow, AuditRefusalAddresses: cfg.AuditRefusalAddresses},
		auth.Deps{Log: s.log, Metrics: s.metrics, Now: s.now, Sink: s.auditSink, GenStore: s.genStore, ReqCtx: s.reqCtx})
	fc := fiber.Config{
		BodyLimit:             hardBodyLimit(cfg.BodyLimit),
		ErrorHandler:          s.serverError,
		DisableStartupMessage: true,
		CaseSensitive:         true,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           2 * time.Minute,
		// No route takes a form: a multipart body is refused 415 unread
		// (contenttype.go) instead of being parsed into memory first.
		DisablePreParseMultipartForm: true,
	}
	if len(cfg.TrustedProxies) > 0 {
		fc.EnableTrustedProxyCheck = true
		fc.TrustedProxies = cfg.TrustedProxies
		fc.ProxyHeader = fiber.HeaderXForwardedFor
		fc.EnableIPValidation = true
	}
	s.app = fiber.New(fc)
	s.app.Use(s.observe, edge.RefuseAmbiguousLength)
	s.doc = openapi.New(s.app, humaRouter{Router: s.app, s: s})
	s.doc.Describe = s.describe
	s.routes()
	s.doc.Require(requestRequired)
	if err := s.doc.Annotate(routedocs.Fields); err != nil {
		panic(err) // a stale entry of the static table routedocs.Fields: TestOpenAPIUpToDate runs this
	}
	return s
}

// App is the fiber app, for app.Test in tests and for mounting.
func (s *Server) App() *fiber.App { return s.app }

// Listen serves on addr (e.g. "127.0.0.1:8080", ":0") until Shutdown.
func (s *Server) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ln)
}

// Serve serves on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	a := ln.Addr()
	s.addr.Store(&a)
	fl := freshconn.Wrap(ln)
	s.ln.Store(fl)
	return s.app.Listener(fl)
}

// Addr is the address being served, or nil before Listen/Serve.
func (s *Server) Addr() net.Addr {
	if a := s.addr.Load(); a != nil {
		return *a
	}
	return nil
}

// Shutdown stops accepting connections and waits for in-flight requests
// until ctx is done. A connection that has sent nothing gets freshConnGrace
// to send its request and is then closed (api/freshconn): without that, an
// unused client connection held the shutdown until the 30 s read timeout.
func (s *Server) Shutdown(ctx context.Context) error {
	if fl := s.ln.Load(); fl != nil {
		fl.CutFresh(freshConnGrace)
	}
	return s.app.ShutdownWithContext(ctx)
}

// freshConnGrace is how long Shutdown waits for a request on a connection
// that has sent nothing yet: a request already on its way arrives well
// within it.
const freshConnGrace = 500 * time.Millisecond

// observe wraps every request: it turns errors and panics into the SPEC
// error body and records the request metrics. It never returns an error.
func (s *Server) observe(c *fiber.Ctx) error {
	start := requestStart(c)
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in handler", "panic", r, "stack", string(debug.Stack()))
			s.writeError(c, fmt.Errorf("panic: %v", r))
		}
		httpx.RequestID(c) // every response carries one (assignRequestID)
		s.metrics.ObserveHTTP(httpx.RouteLabel(c), httpx.MethodLabel(c), c.Response().StatusCode(), time.Since(start))
	}()
	httpx.AssignRequestID(c)
	var err error
	if len(c.Request().Body()) > s.cfg.BodyLimit {
		err = errBodyTooLarge
	} else if err = s.refuseWhileDraining(c); err == nil {
		err = c.Next()
	}
	if err != nil {
		var fe *fiber.Error
		if errors.As(err, &fe) && (fe.Code == 404 || fe.Code == 405) && edge.EmptySegment(c.Path()) {
			err = httpx.Invalid("the path has an empty segment (empty stream, group, member or migration name)")
		}
		s.writeError(c, err)
	}
	return nil
}

// The body limit is enforced in two tiers. Bodies up to hardBodyLimit are
// read in full and then refused with 400 PAYLOAD_TOO_LARGE by observe when over
// Config.BodyLimit: the client gets the SPEC answer on a healthy connection.
// Beyond hardBodyLimit fasthttp stops reading, answers 400 through
// serverError and closes the connection; a client still sending its body
// may then see a connection reset instead of the answer.
func hardBodyLimit(limit int) int {
	return max(4*limit, limit+64<<10)
}

var errBodyTooLarge = fiber.ErrRequestEntityTooLarge

// serverError is fiber's ErrorHandler: it only sees errors raised before
// routing (body over the limit, headers too large).
func (s *Server) serverError(c *fiber.Ctx, err error) error {
	s.writeError(c, edge.FasthttpLengthError(err)) // edge/hygiene.go
	s.metrics.ObserveHTTP(httpx.Unmatched, httpx.MethodLabel(c), c.Response().StatusCode(), 0)
	return nil
}

// ctx returns the context for one Service call, bounded by RequestTimeout.
func (s *Server) ctx() (context.Context, context.CancelFunc) { return s.ctxFrom(time.Now()) }

// ctxFrom is ctx for a call that started at start. Its timer is created only
// if the Service asks for Done or Err: a heartbeat answered from memory only
// reads the deadline, and costs no timer.
func (s *Server) ctxFrom(start time.Time) (context.Context, context.CancelFunc) {
	c := &lazyDeadline{deadline: start.Add(s.cfg.RequestTimeout)}
	return c, c.release
}

// requestStart is when fasthttp started handling the request (it reads the
// clock for every request anyway), or now outside a server (tests).
func requestStart(c *fiber.Ctx) time.Time {
	if t := c.Context().Time(); !t.IsZero() {
		return t
	}
	return time.Now()
}

// lazyDeadline is a context.Context without values or parent whose deadline
// timer (context.WithDeadline) is started on the first call to Done or Err.
type lazyDeadline struct {
	deadline time.Time
	once     sync.Once
	ctx      context.Context
	cancel   context.CancelFunc
}

func (c *lazyDeadline) init() {
	c.once.Do(func() { c.ctx, c.cancel = context.WithDeadline(context.Background(), c.deadline) })
}

func (c *lazyDeadline) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *lazyDeadline) Done() <-chan struct{}       { c.init(); return c.ctx.Done() }
func (c *lazyDeadline) Err() error                  { c.init(); return c.ctx.Err() }
func (c *lazyDeadline) Value(any) any               { return nil }

// release is the CancelFunc: it stops the timer if one was started, and
// makes Done closed and Err Canceled from then on.
func (c *lazyDeadline) release() {
	c.once.Do(func() { c.ctx, c.cancel = canceledContext, func() {} }) // never asked: no timer at all
	c.cancel()
}

var canceledContext = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()
