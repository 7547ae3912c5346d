package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/console"
)

// Route table (SPEC §5). Access: see auth.go. "limited": admin mutations,
// rate-limited per principal, and audited; login is audited (its failed
// credentials are limited like on every route: authlimit.go).
//
//	POST   /coord/v1/streams/:p/groups/:g/members/:memberId/heartbeat   MEMBER*  heartbeat (200 for every protocol outcome)
//	POST   /coord/v1/streams/:p                                         WRITE    create stream → 201, limited
//	DELETE /coord/v1/streams/:p                                         WRITE    delete an empty stream, limited
//	POST   /coord/v1/streams/:p/groups/:g                               WRITE    create group → 201, limited
//	GET    /coord/v1/streams/:p/groups/:g                               WRITE    group (never creates it: 404 GROUP_NOT_FOUND)
//	DELETE /coord/v1/streams/:p/groups/:g                               WRITE    delete group, limited
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
// users scoped to groups (wholeStream, groupscope.go); list routes filter by
// stream and group scope (scopefilter.go).
// Every non-GET route, and producer routing, refuses cross-origin browser
// requests (origin.go); every route with a body takes only JSON
// (contenttype.go). Every route added here must be described in openapi_routes.go:
// TestOpenAPIMatchesRouter fails otherwise.
// *  MEMBER only when auth.authenticate-member-api is on; public otherwise.
// ** public when auth.authenticate-member-api is off; any role otherwise.
func (s *Server) routes() {
	const (
		v1    = "/coord/v1"
		group = v1 + "/streams/:streamPrefix/groups/:consumerGroup"
		mon   = v1 + "/monitoring/streams/:streamPrefix/groups/:consumerGroup"
	)
	s.add(fiber.MethodPost, group+"/members/:memberId/heartbeat", accessMember, nil, s.heartbeat)

	s.add(fiber.MethodGet, v1+"/streams", accessRead, nil, s.streams)
	s.add(fiber.MethodGet, v1+"/streams/:streamPrefix", accessRead, nil, s.stream)
	s.add(fiber.MethodPost, v1+"/streams/:streamPrefix", accessWrite, adminKey, wholeStream(s.createStream))
	s.add(fiber.MethodDelete, v1+"/streams/:streamPrefix", accessWrite, adminKey, wholeStream(s.deleteStream))
	s.add(fiber.MethodPost, group, accessWrite, adminKey, s.createGroup)
	s.add(fiber.MethodGet, group, accessWrite, nil, s.getGroup)
	s.add(fiber.MethodDelete, group, accessWrite, adminKey, s.deleteGroup)
	s.add(fiber.MethodGet, group+"/producer-routing", accessRouting, nil, s.sameOriginOnly(s.producerRouting))
	s.add(fiber.MethodPost, v1+"/streams/:streamPrefix/scale", accessWrite, adminKey, wholeStream(s.scale))
	s.add(fiber.MethodGet, group+"/migrations/:reshardingId", accessRead, nil, s.migration)
	s.add(fiber.MethodPost, group+"/migrations/:reshardingId/rollback", accessWrite, adminKey, wholeStream(s.rollback))
	s.add(fiber.MethodGet, v1+"/streams/:streamPrefix/migrations", accessRead, nil, s.streamMigrations)
	s.add(fiber.MethodGet, v1+"/streams/:streamPrefix/migrations/:reshardingId", accessRead, nil, s.streamMigration)
	s.add(fiber.MethodPost, v1+"/streams/:streamPrefix/migrations/:reshardingId/rollback", accessWrite, adminKey, wholeStream(s.streamRollback))
	s.add(fiber.MethodGet, group+"/offsets", accessRead, nil, s.offsets)
	s.add(fiber.MethodGet, v1+"/streams/:streamPrefix/shards/:shardIndex/messages", accessRead, nil, s.messages)
	s.add(fiber.MethodPost, v1+"/auth/login", accessPublic, loginKey, s.login)
	s.add(fiber.MethodPost, v1+"/auth/users/:username/revoke-tokens", accessAdmin, adminKey, s.revokeTokens)

	s.add(fiber.MethodGet, v1+"/monitoring/health", accessPublic, nil, s.health)
	s.add(fiber.MethodHead, v1+"/monitoring/health", accessPublic, nil, s.health)
	s.add(fiber.MethodGet, v1+"/monitoring/ready", accessPublic, nil, s.ready)
	s.add(fiber.MethodHead, v1+"/monitoring/ready", accessPublic, nil, s.ready) // load balancers
	s.add(fiber.MethodGet, v1+"/monitoring/live", accessPublic, nil, s.live)
	s.add(fiber.MethodGet, v1+"/monitoring/compatibility", accessProtocol, nil, s.compatibility)
	s.add(fiber.MethodGet, v1+"/monitoring/groups", accessRead, nil, s.groups)
	s.add(fiber.MethodGet, mon, accessRead, nil, s.monitorGroup)
	s.add(fiber.MethodGet, mon+"/members", accessRead, nil, s.members)
	s.add(fiber.MethodGet, mon+"/assignments", accessRead, nil, s.assignments)
	s.add(fiber.MethodGet, mon+"/consumption", accessRead, nil, s.consumption)
	s.add(fiber.MethodGet, mon+"/migrations", accessRead, nil, s.migrations)
	s.add(fiber.MethodGet, v1+"/monitoring/cluster", accessRead, nil, unscopedOnly(v1+"/monitoring/cluster", s.cluster))

	s.add(fiber.MethodGet, "/debug/actors", accessRead, nil, unscopedOnly("/debug/actors", s.debugActors))
	s.add(fiber.MethodGet, "/debug/streams/:streamPrefix/groups/:consumerGroup", accessRead, nil, s.debugGroup)
	s.add(fiber.MethodGet, "/metrics", accessRead, nil, unscopedOnly("/metrics", s.metricsHandler()))

	s.add(fiber.MethodGet, v1+"/openapi.json", accessPublic, nil, s.openAPI)
	s.add(fiber.MethodGet, "/docs", accessPublic, nil, s.docsPage)
	s.add(fiber.MethodGet, console.Path, accessPublic, nil, console.Handler)
	s.add(fiber.MethodGet, console.Path+"/*", accessPublic, nil, console.Handler)
}

// routeEntry is one registered route as the OpenAPI document and its test
// see it: who may call it and whether it is rate limited (and audited).
type routeEntry struct {
	method, path string
	need         access
	limited      bool
}

// add registers one route: access check, optional rate limit keyed by
// limitKey, then the handler. Rate-limited routes are the admin mutations
// and login: they are also written to the audit log (audit.go).
func (s *Server) add(method, path string, need access, limitKey func(*fiber.Ctx) string, h fiber.Handler) {
	s.table = append(s.table, routeEntry{method: method, path: path, need: need, limited: limitKey != nil})
	var chain []fiber.Handler
	if method != fiber.MethodGet && method != fiber.MethodHead {
		chain = append(chain, s.sameOrigin, s.jsonBody) // origin.go, contenttype.go
	}
	if limitKey != nil {
		chain = append(chain, s.audited)
	}
	if a := s.require(need); a != nil {
		chain = append(chain, a)
	}
	if limitKey != nil {
		if l := s.rateLimited(limitKey); l != nil {
			chain = append(chain, l)
		}
	}
	s.app.Add(method, path, append(chain, h)...)
}
