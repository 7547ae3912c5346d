package api

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/auth"
	"github.com/redisstream/coordinator/api/console"
	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/api/openapi"
	"github.com/redisstream/coordinator/api/routedocs"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Route table (SPEC §5). Access: see api/auth/auth.go. "limited": admin mutations,
// rate-limited per principal, and audited; login is audited (its failed
// credentials are limited like on every route: api/auth/authlimit.go).
//
//	POST   /coord/v1/streams/:p/groups/:g/members/:memberId/heartbeat   MEMBER*  heartbeat (200 for every protocol outcome)
//	POST   /coord/v1/streams/:p                                         WRITE    create stream → 201, limited
//	DELETE /coord/v1/streams/:p                                         WRITE    delete an empty stream, limited
//	POST   /coord/v1/streams/:p/groups/:g                               WRITE    create group → 201, limited
//	GET    /coord/v1/streams/:p/groups/:g                               WRITE    group (never creates it: 404 GROUP_NOT_FOUND)
//	DELETE /coord/v1/streams/:p/groups/:g                               WRITE    delete group, limited
//	POST   /coord/v1/streams/:p/groups/:g/assignment                    WRITE    set the assignment mode (uniform|capacity), limited
//	POST   /coord/v1/streams/:p/groups/:g/rebalancing                   WRITE    pause or resume rebalancing → 200 group, limited
//	GET    /coord/v1/streams/:p/groups/:g/producer-routing              READ|MEMBER routing (creates the group on first use)
//	POST   /coord/v1/streams/:p/scale                                   WRITE    reshard → 202, limited
//	GET    /coord/v1/streams/:p/groups/:g/migrations/:id                READ     one migration
//	POST   /coord/v1/streams/:p/groups/:g/migrations/:id/rollback       WRITE    rollback → 202, limited
//	GET    /coord/v1/streams/:p/migrations                              READ     a stream's migrations, newest first (with or without groups)
//	GET    /coord/v1/streams/:p/migrations/:id                          READ     one migration of a stream
//	POST   /coord/v1/streams/:p/migrations/:id/rollback                 WRITE    rollback → 202, limited
//	GET    /coord/v1/streams/:p/groups/:g/offsets                       READ     per-shard offsets, lag, consumers, owners
//	GET    /coord/v1/streams/:p/shards/:shardIndex/messages             READ     one page of a shard stream (?from=&count=)
//	POST   /coord/v1/auth/login                                         public   token, audited
//	POST   /coord/v1/auth/users/:username/revoke-tokens                 ADMIN    refuse every token of the user issued so far, limited
//	GET    /coord/v1/monitoring/health (and HEAD)                       public   always 200, UP/DEGRADED/DOWN in the body
//	GET    /coord/v1/monitoring/ready (and HEAD)                        public   probes: 200 UP/DEGRADED, 503 DOWN
//	GET    /coord/v1/monitoring/live                                    public   liveness: 200 while serving, also while draining (drain.go)
//	GET    /coord/v1/monitoring/compatibility                           MEMBER** protocol versions
//	GET    /coord/v1/monitoring/groups                                  READ
//	GET    /coord/v1/monitoring/streams/:p/groups/:g                    READ
//	GET    /coord/v1/monitoring/streams/:p/groups/:g/members            READ
//	GET    /coord/v1/monitoring/streams/:p/groups/:g/assignments        READ
//	GET    /coord/v1/monitoring/streams/:p/groups/:g/consumption        READ
//	GET    /coord/v1/monitoring/streams/:p/groups/:g/migrations         READ
//	GET    /coord/v1/monitoring/cluster                                 READ     nodes, incarnations, hosted groups, refusing
//	GET    /debug/actors                                                READ
//	GET    /debug/streams/:p/groups/:g                                  READ
//	GET    /coord/v1/streams                                            READ     every stream: routing and consumed shard counts, active migration
//	GET    /coord/v1/streams/:p                                         READ     one stream and its groups
//	GET    /metrics                                                     READ     Prometheus text (also public on metrics.addr when set)
//	GET    /coord/v1/openapi.json                                       public   this table as OpenAPI 3.1 (openapi.json)
//	GET    /docs                                                        public   offline viewer of the OpenAPI document (one embedded page)
//	GET    /console, /console/*                                         public   web console's static files (its data comes from the READ routes above)
//
// Routes that change a whole stream (create, delete, scale, rollback) refuse
// users scoped to groups (auth.WholeStream, api/auth/groupscope.go); list routes filter by
// stream and group scope (api/auth/scopefilter.go).
// Every non-GET route, and producer routing, refuses cross-origin browser
// requests (origin.go); every route with a body takes only JSON
// (contenttype.go). Every route is registered with its description
// (api/routedocs) and so is in the OpenAPI document (typed.go, package
// openapi); TestOpenAPIMatchesRouter holds the two together.
// *  MEMBER only when auth.authenticate-member-api is on; public otherwise.
// ** public when auth.authenticate-member-api is off; any role otherwise.
func (s *Server) routes() {
	const (
		v1    = "/coord/v1"
		strm  = v1 + "/streams/:streamPrefix"
		group = strm + "/groups/:consumerGroup"
		mon   = v1 + "/monitoring/streams/:streamPrefix/groups/:consumerGroup"
		get   = fiber.MethodGet
		post  = fiber.MethodPost
		del   = fiber.MethodDelete
		head  = fiber.MethodHead
	)
	d := routedocs.Routes
	h := handlers{svc: s.svc, cfg: &s.cfg, ctx: s.ctx, reqCtx: s.reqCtx, metrics: s.metrics, draining: s.Draining}
	s.admin, s.browse, s.mon = (*admin)(&h), (*browse)(&h), (*monitoring)(&h)
	s.raw(route{post, group + "/members/:memberId/heartbeat", auth.AccessMember, nil, nil, d.Heartbeat}, s.heartbeat)

	handle(s, route{get, v1 + "/streams", auth.AccessRead, nil, nil, d.Streams}, s.browse.streams)
	handle(s, route{get, strm, auth.AccessRead, nil, nil, d.Stream}, s.browse.stream)
	handle(s, route{post, strm, auth.AccessWrite, auth.AdminKey, auth.WholeStream, d.CreateStream}, s.admin.createStream)
	handle(s, route{del, strm, auth.AccessWrite, auth.AdminKey, auth.WholeStream, d.DeleteStream}, s.admin.deleteStream)
	handle(s, route{post, group, auth.AccessWrite, auth.AdminKey, nil, d.CreateGroup}, s.admin.createGroup)
	handle(s, route{get, group, auth.AccessWrite, nil, nil, d.GetGroup}, s.admin.getGroup)
	handle(s, route{del, group, auth.AccessWrite, auth.AdminKey, nil, d.DeleteGroup}, s.admin.deleteGroup)
	handle(s, route{post, group + "/assignment", auth.AccessWrite, auth.AdminKey, nil, d.SetAssignment}, s.admin.setAssignment)
	handle(s, route{post, group + "/rebalancing", auth.AccessWrite, auth.AdminKey, nil, d.Rebalancing}, s.admin.setRebalancing)
	handle(s, route{get, group + "/producer-routing", auth.AccessRouting, nil, s.sameOriginOnly, d.ProducerRouting}, s.admin.producerRouting)
	handle(s, route{post, strm + "/scale", auth.AccessWrite, auth.AdminKey, auth.WholeStream, d.Scale}, s.admin.scale)
	handle(s, route{get, group + "/migrations/:reshardingId", auth.AccessRead, nil, nil, d.Migration}, s.admin.migration)
	handle(s, route{post, group + "/migrations/:reshardingId/rollback", auth.AccessWrite, auth.AdminKey, auth.WholeStream, d.Rollback}, s.admin.rollback)
	handle(s, route{get, strm + "/migrations", auth.AccessRead, nil, nil, d.StreamMigrations}, s.admin.streamMigrations)
	handle(s, route{get, strm + "/migrations/:reshardingId", auth.AccessRead, nil, nil, d.StreamMigration}, s.admin.streamMigration)
	handle(s, route{post, strm + "/migrations/:reshardingId/rollback", auth.AccessWrite, auth.AdminKey, auth.WholeStream, d.StreamRollback}, s.admin.streamRollback)
	handle(s, route{get, group + "/offsets", auth.AccessRead, nil, nil, d.Offsets}, s.browse.offsets())
	handle(s, route{get, strm + "/shards/:shardIndex/messages", auth.AccessRead, nil, nil, d.Messages}, s.browse.messages)
	handle(s, route{post, v1 + "/auth/login", auth.AccessPublic, auth.LoginKey, nil, d.Login}, func(c *fiber.Ctx, _ *noInput) (protocol.LoginResponse, error) { return s.guard.Login(c) })
	handle(s, route{post, v1 + "/auth/users/:username/revoke-tokens", auth.AccessAdmin, auth.AdminKey, nil, d.RevokeTokens}, func(c *fiber.Ctx, _ *UserPath) (protocol.RevokeTokensResponse, error) { return s.guard.RevokeTokens(c) })

	handle(s, route{get, v1 + "/monitoring/health", auth.AccessPublic, nil, nil, d.Health}, s.mon.health)
	handle(s, route{head, v1 + "/monitoring/health", auth.AccessPublic, nil, nil, d.HeadHealth}, s.mon.health)
	s.raw(route{get, v1 + "/monitoring/ready", auth.AccessPublic, nil, nil, d.Ready}, s.mon.ready)
	s.raw(route{head, v1 + "/monitoring/ready", auth.AccessPublic, nil, nil, d.HeadReady}, s.mon.ready) // load balancers
	handle(s, route{get, v1 + "/monitoring/live", auth.AccessPublic, nil, nil, d.Live}, s.mon.live)
	handle(s, route{get, v1 + "/monitoring/compatibility", auth.AccessProtocol, nil, nil, d.Compatibility}, s.mon.compatibility)
	handle(s, route{get, v1 + "/monitoring/groups", auth.AccessRead, nil, nil, d.Groups}, s.mon.groups)
	handle(s, route{get, mon, auth.AccessRead, nil, nil, d.MonitorGroup}, s.mon.monitorGroup())
	handle(s, route{get, mon + "/members", auth.AccessRead, nil, nil, d.Members}, s.mon.members())
	handle(s, route{get, mon + "/assignments", auth.AccessRead, nil, nil, d.Assignments}, s.mon.assignments())
	handle(s, route{get, mon + "/consumption", auth.AccessRead, nil, nil, d.Consumption}, s.mon.consumption())
	handle(s, route{get, mon + "/migrations", auth.AccessRead, nil, nil, d.Migrations}, s.mon.migrations())
	handle(s, route{get, v1 + "/monitoring/cluster", auth.AccessRead, nil, unscoped(v1 + "/monitoring/cluster"), d.Cluster}, s.mon.cluster)

	handle(s, route{get, "/debug/actors", auth.AccessRead, nil, unscoped("/debug/actors"), d.DebugActors}, s.mon.debugActors)
	handle(s, route{get, "/debug/streams/:streamPrefix/groups/:consumerGroup", auth.AccessRead, nil, nil, d.DebugGroup}, s.mon.debugGroup())
	s.raw(route{get, "/metrics", auth.AccessRead, nil, unscoped("/metrics"), d.Metrics}, s.mon.metricsHandler())

	s.raw(route{get, v1 + "/openapi.json", auth.AccessPublic, nil, nil, d.OpenAPI}, openapi.Serve)
	s.raw(route{get, "/docs", auth.AccessPublic, nil, nil, d.Docs}, openapi.DocsPage)
	s.addRoute(route{method: get, path: console.Path, need: auth.AccessPublic}, console.Handler)
	s.addRoute(route{method: get, path: console.Path + "/*", need: auth.AccessPublic}, console.Handler)
}

// handlers is what the handler groups (admin, browse, monitoring: handlers_*.go)
// take from the Server; each group is its own type with its own methods.
type handlers struct {
	svc      coordinator.Service
	cfg      *Config
	ctx      func() (context.Context, context.CancelFunc)
	reqCtx   func(*fiber.Ctx) (context.Context, context.CancelFunc)
	metrics  *metrics.Metrics
	draining func() bool
}

type (
	admin      handlers
	browse     handlers
	monitoring handlers
)

// route is one registered route: where, who may call it, its rate limit
// key (admin mutations and login: also audited), an optional guard around
// its handler, and what the document says about it.
type route struct {
	method, path string
	need         auth.Access
	limit        func(*fiber.Ctx) string
	guard        func(fiber.Handler) fiber.Handler
	doc          routedocs.Op
}

// unscoped is the guard of a route that shows every stream (unscopedOnly).
func unscoped(path string) func(fiber.Handler) fiber.Handler {
	return func(h fiber.Handler) fiber.Handler { return auth.UnscopedOnly(path, h) }
}

// addRoute registers one route: origin and content-type checks on routes
// that may change state, audit, access check, optional rate limit, then the
// (guarded) handler.
func (s *Server) addRoute(r route, h fiber.Handler) {
	s.table = append(s.table, r)
	var chain []fiber.Handler
	if r.method != fiber.MethodGet && r.method != fiber.MethodHead {
		chain = append(chain, s.sameOrigin, s.jsonBody) // origin.go, contenttype.go
	}
	if r.limit != nil {
		chain = append(chain, s.guard.Audited)
	}
	if a := s.guard.Require(r.need); a != nil {
		chain = append(chain, a)
	}
	if r.limit != nil {
		if l := s.guard.RateLimited(r.limit); l != nil {
			chain = append(chain, l)
		}
	}
	if r.guard != nil {
		h = r.guard(h)
	}
	s.app.Add(r.method, r.path, append(chain, h)...)
}
