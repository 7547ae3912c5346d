package routedocs

import (
	"github.com/danielgtaylor/huma/v2"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Op describes one route for the OpenAPI document, beyond what huma
// derives from its typed handler (api/typed.go). Who may call a route and
// whether it is rate limited come from the route table (api/routes.go), not
// from here, so the two cannot drift; the statuses are derived from what
// the route does: see statuses in api/route_status.go.
type Op struct {
	Summary string
	Tag     string
	// Req is the request body (a zero value of its type), nil for none;
	// typed routes with withBody get it from their input type (handle).
	Req any
	// ReqOptional: the body may be empty (login with Basic credentials).
	ReqOptional bool
	// Resp is the success body of a raw route (Server.raw; a typed route's
	// is its handler's result type): a zero value of a protocol type, a
	// *huma.Schema, or nil.
	Resp any
	// ContentType of the success body; "" = application/json.
	ContentType string
	OK          int
	// Errs are the Service errors the route can answer (statuses from
	// api/httpx errors.go's table).
	Errs []error
	// Extra lists statuses the handler answers by itself (ready's 503,
	// login's 400 with authentication off, …).
	Extra []int
	// Service: the handler calls the Service, which may time out (503) or
	// fail (500).
	Service bool
	// Query parameters: name → description.
	Query []QueryParam
	// CrossOriginGuard: a GET refused to cross-origin browser requests,
	// because it may create state (producer routing; api/origin.go).
	CrossOriginGuard bool
}

// QueryParam is one query parameter of a route.
type QueryParam struct {
	Name, Type, Description string
	Required                bool
}

// Routes describes every route of the api package (api/routes.go). Tags group the viewer's
// sections.
var Routes = struct {
	Heartbeat, CreateStream, DeleteStream, CreateGroup, GetGroup, DeleteGroup, SetAssignment, Rebalancing, ProducerRouting, Scale, Migration, Rollback, StreamMigrations, StreamMigration, StreamRollback, Login, RevokeTokens, Health, HeadHealth, Ready, HeadReady, Live, Compatibility, Streams, Stream, Cluster, Groups, MonitorGroup, Members, Assignments, Consumption, Migrations, Offsets, Messages, DebugActors, DebugGroup, Metrics, OpenAPI, Docs Op
}{
	Heartbeat: Op{
		Summary: "Member heartbeat (protocol v1): join, keep the lease, report ownership, receive the assignment. Every protocol outcome is HTTP 200 with its status in the body.",
		Tag:     "member", Req: protocol.HeartbeatRequest{}, Resp: protocol.HeartbeatResponse{}, OK: 200, Service: true,
	},
	CreateStream: Op{
		Summary: "Create a stream: provision its shard streams.",
		Tag:     "admin", OK: 201, Service: true,
		Errs: []error{coordinator.ErrStreamExists, coordinator.ErrLimitExceeded},
	},
	DeleteStream: Op{
		Summary: "Delete a stream with 0 shards, no migration in progress and no groups (409 STREAM_NOT_EMPTY names what to do first).",
		Tag:     "admin", OK: 200, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrStreamNotEmpty, coordinator.ErrStateConflict},
	},
	CreateGroup: Op{
		Summary: "Create a consumer group explicitly: its Redis consumer group on every shard, from the start of the stream (the only way when groups.creation is explicit).",
		Tag:     "admin", OK: 201, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupExists, coordinator.ErrLimitExceeded},
	},
	GetGroup: Op{
		Summary: "Group metadata of an existing group (never creates it: 404 GROUP_NOT_FOUND).",
		Tag:     "admin", OK: 200, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	DeleteGroup: Op{
		Summary: "Delete a group's coordinator metadata (409 while it has live members, unless force).",
		Tag:     "admin", OK: 200, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound, coordinator.ErrGroupHasMembers, coordinator.ErrStateConflict},
	},
	SetAssignment: Op{
		Summary: "Set a group's assignment mode: uniform (every member the same number of shards, the default) or capacity (shares in proportion to each member's runtimeMaxConcurrency). The group reassigns at once; shards move as in any rebalance (revoke before assign, the move cap).",
		Tag:     "admin", OK: 200, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound, coordinator.ErrStateConflict},
	},
	Rebalancing: Op{
		Summary: "Pause (paused: true) or resume (paused: false) the group's rebalancing. While paused no shard moves between live members: joiners are admitted and wait, no revocation is started; an expired or fenced member's shards are still reassigned. Durable; pausing a paused group keeps its first pause.",
		Tag:     "admin", OK: 200, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	ProducerRouting: Op{
		Summary: "Producer routing: shard count, key pattern and Redis Cluster slot of every shard; creates the group on first use unless groups.creation is explicit (so a browser request from another origin is refused, 403).",
		Tag:     "routing", OK: 200, Service: true, CrossOriginGuard: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound, coordinator.ErrLimitExceeded},
	},
	Scale: Op{
		Summary: "Reshard a stream to targetShardCount: starts one migration per group.",
		Tag:     "resharding", OK: 202, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrMigrationActive, coordinator.ErrStateConflict},
	},
	Migration: Op{
		Summary: "One migration of a group.",
		Tag:     "resharding", OK: 200, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound, coordinator.ErrMigrationNotFound},
	},
	Rollback: Op{
		Summary: "Roll a migration back while that is still allowed.",
		Tag:     "resharding", OK: 202, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound, coordinator.ErrMigrationNotFound, coordinator.ErrRollbackNotAllowed, coordinator.ErrStateConflict},
	},
	StreamMigrations: Op{
		Summary: "A stream's migrations, newest first, and the active one's id; works for a stream without groups.",
		Tag:     "resharding", OK: 200, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound},
	},
	StreamMigration: Op{
		Summary: "One migration of a stream (with or without groups).",
		Tag:     "resharding", OK: 200, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrMigrationNotFound},
	},
	StreamRollback: Op{
		Summary: "Roll a stream's migration back while that is still allowed (with or without groups).",
		Tag:     "resharding", OK: 202, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrMigrationNotFound, coordinator.ErrRollbackNotAllowed, coordinator.ErrStateConflict},
	},
	Login: Op{
		Summary: "Trade a username and password (body, or Basic credentials with an empty body) for a bearer token. 400 AUTHENTICATION_DISABLED when no users are configured.",
		Tag:     "auth", Req: protocol.LoginRequest{}, ReqOptional: true, OK: 200,
		Extra: []int{400, 401, 503}, // 503: draining
	},
	RevokeTokens: Op{
		Summary: "Revoke every bearer token of a user issued so far (ADMIN): refused on this node at once, on the others within otherNodesWithinSeconds. The password is unchanged; the user logs in again. 400 AUTHENTICATION_DISABLED when no users are configured.",
		Tag:     "auth", Req: protocol.RevokeTokensRequest{}, OK: 200, Service: true,
	},
	Health: Op{
		Summary: "Health: always 200, UP, DEGRADED or DOWN in the body (dashboards). Probes use /monitoring/ready and /monitoring/live.",
		Tag:     "monitoring", OK: 200,
	},
	HeadHealth: Op{
		Summary: "Health without a body.", Tag: "monitoring", OK: 200,
	},
	Ready: Op{
		Summary: "Readiness probe: 200 when UP or DEGRADED; 503 when DOWN or while the node shuts down (draining).",
		Tag:     "monitoring", Resp: protocol.HealthResponse{}, OK: 200, Extra: []int{503},
	},
	HeadReady: Op{
		Summary: "Readiness for load balancers, without a body.", Tag: "monitoring", OK: 200, Extra: []int{503},
	},
	Live: Op{
		Summary: "Liveness probe: 200 while the process serves HTTP, also while it drains; restart the process only when this fails.",
		Tag:     "monitoring", OK: 200,
	},
	Compatibility: Op{
		Summary: "Protocol versions this build accepts.",
		Tag:     "monitoring", OK: 200,
	},
	Streams: Op{
		Summary: "Every stream (in the user's scope): routing and consumed shard counts, metadata version, active migration.", Tag: "admin",
		OK: 200, Service: true,
	},
	Stream: Op{
		Summary: "One stream and the names of its groups.", Tag: "admin",
		OK: 200, Service: true, Errs: []error{coordinator.ErrStreamNotFound},
	},
	Cluster: Op{
		Summary: "Every coordinator node: incarnation, address, start time, refusing or not, and the groups it hosts.", Tag: "monitoring",
		OK: 200, Service: true,
	},
	Groups: Op{
		Summary: "Every group (of the user's streams, for a user scoped to some).", Tag: "monitoring", OK: 200, Service: true,
	},
	MonitorGroup: Op{
		Summary: "One group (never creates it).", Tag: "monitoring", OK: 200, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	Members: Op{
		Summary: "Members of a group with state, epoch, lease and assignment.", Tag: "monitoring",
		OK: 200, Service: true, Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	Assignments: Op{
		Summary: "Target and current assignment, revocations in progress and invariant checks.", Tag: "monitoring",
		OK: 200, Service: true, Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	Consumption: Op{
		Summary: "Per member, per shard progress as members report it.", Tag: "monitoring",
		OK: 200, Service: true, Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	Migrations: Op{
		Summary: "Migrations of a group and the active one.", Tag: "monitoring",
		OK: 200, Service: true, Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	Offsets: Op{
		Summary: "Per shard: length, last id, entries read, lag, pending, consumers, memory usage and owner, read from Redis.",
		Tag:     "data", OK: 200, Service: true, Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound, coordinator.ErrShardKeyNotStream},
	},
	Messages: Op{
		Summary: "Entries of one shard, oldest first from the cursor `from` (exclusive), at most `count`; `next` is the cursor of the following page.",
		Tag:     "data", OK: 200, Service: true, Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrShardNotFound, coordinator.ErrShardKeyNotStream},
		Query: []QueryParam{
			{Name: "from", Type: "string", Description: "entry id to start after (exclusive); empty or \"-\" = from the start"},
			{Name: "count", Type: "integer", Description: "most entries to return (default 50, at most limits.browse-max-count)"},
		},
	},
	DebugActors: Op{
		Summary: "Live actor state on this node (every stream: 403 for users scoped to some streams).", Tag: "debug", OK: 200, Service: true,
	},
	DebugGroup: Op{
		Summary: "One group's live actor state on this node.", Tag: "debug", OK: 200, Service: true,
		Errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	Metrics: Op{
		Summary: "Prometheus metrics (text exposition; every stream: 403 for users scoped to some streams). Also served without authentication on metrics.addr when set.",
		Tag:     "monitoring", Resp: &huma.Schema{Type: "string"}, ContentType: "text/plain", OK: 200,
	},
	OpenAPI: Op{
		Summary: "This document.", Tag: "docs", Resp: &huma.Schema{Type: "object"}, OK: 200,
	},
	Docs: Op{
		Summary: "Offline viewer of this document (HTML, no external resources).", Tag: "docs",
		Resp: &huma.Schema{Type: "string"}, ContentType: "text/html", OK: 200,
	},
}
