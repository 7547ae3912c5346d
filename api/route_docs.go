package api

import (
	"github.com/danielgtaylor/huma/v2"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// opDoc describes one route for the OpenAPI document, beyond what huma
// derives from its typed handler (typed.go). Who may call a route and
// whether it is rate limited come from the route table (routes.go), not
// from here, so the two cannot drift; the statuses are derived from what
// the route does: see opDoc.statuses.
type opDoc struct {
	summary string
	tag     string
	// req is the request body (a zero value of its type), nil for none;
	// typed routes with withBody get it from their input type (handle).
	req any
	// reqOptional: the body may be empty (login with Basic credentials).
	reqOptional bool
	// resp is the success body of a raw route (Server.raw; a typed route's
	// is its handler's result type): a zero value of a protocol type, a
	// *huma.Schema, or nil.
	resp any
	// contentType of the success body; "" = application/json.
	contentType string
	ok          int
	// errs are the Service errors the route can answer (statuses from
	// errors.go's table).
	errs []error
	// extra lists statuses the handler answers by itself (ready's 503,
	// login's 400 with authentication off, …).
	extra []int
	// service: the handler calls the Service, which may time out (503) or
	// fail (500).
	service bool
	// query parameters: name → description.
	query []queryParam
	// crossOriginGuard: a GET refused to cross-origin browser requests,
	// because it may create state (producer routing; origin.go).
	crossOriginGuard bool
}

type queryParam struct {
	name, typ, description string
	required               bool
}

// routeDocs describes every route of routes.go. Tags group the viewer's
// sections.
var routeDocs = struct {
	heartbeat, createStream, deleteStream, createGroup, getGroup, deleteGroup, setAssignment, producerRouting, scale, migration, rollback, streamMigrations, streamMigration, streamRollback, login, revokeTokens, health, headHealth, ready, headReady, live, compatibility, streams, stream, cluster, groups, monitorGroup, members, assignments, consumption, migrations, offsets, messages, debugActors, debugGroup, metrics, openAPI, docs opDoc
}{
	heartbeat: opDoc{
		summary: "Member heartbeat (protocol v1): join, keep the lease, report ownership, receive the assignment. Every protocol outcome is HTTP 200 with its status in the body.",
		tag:     "member", req: protocol.HeartbeatRequest{}, resp: protocol.HeartbeatResponse{}, ok: 200, service: true,
	},
	createStream: opDoc{
		summary: "Create a stream: provision its shard streams.",
		tag:     "admin", ok: 201, service: true,
		errs: []error{coordinator.ErrStreamExists, coordinator.ErrLimitExceeded},
	},
	deleteStream: opDoc{
		summary: "Delete a stream with 0 shards, no migration in progress and no groups (409 STREAM_NOT_EMPTY names what to do first).",
		tag:     "admin", ok: 200, service: true,
		errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrStreamNotEmpty, coordinator.ErrStateConflict},
	},
	createGroup: opDoc{
		summary: "Create a consumer group explicitly: its Redis consumer group on every shard, from the start of the stream (the only way when groups.creation is explicit).",
		tag:     "admin", ok: 201, service: true,
		errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupExists, coordinator.ErrLimitExceeded},
	},
	getGroup: opDoc{
		summary: "Group metadata of an existing group (never creates it: 404 GROUP_NOT_FOUND).",
		tag:     "admin", ok: 200, service: true,
		errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	deleteGroup: opDoc{
		summary: "Delete a group's coordinator metadata (409 while it has live members, unless force).",
		tag:     "admin", ok: 200, service: true,
		errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound, coordinator.ErrGroupHasMembers, coordinator.ErrStateConflict},
	},
	setAssignment: opDoc{
		summary: "Set a group's assignment mode: uniform (every member the same number of shards, the default) or capacity (shares in proportion to each member's runtimeMaxConcurrency). The group reassigns at once; shards move as in any rebalance (revoke before assign, the move cap).",
		tag:     "admin", ok: 200, service: true,
		errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound, coordinator.ErrStateConflict},
	},
	producerRouting: opDoc{
		summary: "Producer routing: shard count, key pattern and Redis Cluster slot of every shard; creates the group on first use unless groups.creation is explicit (so a browser request from another origin is refused, 403).",
		tag:     "routing", ok: 200, service: true, crossOriginGuard: true,
		errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound, coordinator.ErrLimitExceeded},
	},
	scale: opDoc{
		summary: "Reshard a stream to targetShardCount: starts one migration per group.",
		tag:     "resharding", ok: 202, service: true,
		errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrMigrationActive, coordinator.ErrStateConflict},
	},
	migration: opDoc{
		summary: "One migration of a group.",
		tag:     "resharding", ok: 200, service: true,
		errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound, coordinator.ErrMigrationNotFound},
	},
	rollback: opDoc{
		summary: "Roll a migration back while that is still allowed.",
		tag:     "resharding", ok: 202, service: true,
		errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound, coordinator.ErrMigrationNotFound, coordinator.ErrRollbackNotAllowed, coordinator.ErrStateConflict},
	},
	streamMigrations: opDoc{
		summary: "A stream's migrations, newest first, and the active one's id; works for a stream without groups.",
		tag:     "resharding", ok: 200, service: true,
		errs: []error{coordinator.ErrStreamNotFound},
	},
	streamMigration: opDoc{
		summary: "One migration of a stream (with or without groups).",
		tag:     "resharding", ok: 200, service: true,
		errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrMigrationNotFound},
	},
	streamRollback: opDoc{
		summary: "Roll a stream's migration back while that is still allowed (with or without groups).",
		tag:     "resharding", ok: 202, service: true,
		errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrMigrationNotFound, coordinator.ErrRollbackNotAllowed, coordinator.ErrStateConflict},
	},
	login: opDoc{
		summary: "Trade a username and password (body, or Basic credentials with an empty body) for a bearer token. 400 AUTHENTICATION_DISABLED when no users are configured.",
		tag:     "auth", req: protocol.LoginRequest{}, reqOptional: true, ok: 200,
		extra: []int{400, 401, 503}, // 503: draining
	},
	revokeTokens: opDoc{
		summary: "Revoke every bearer token of a user issued so far (ADMIN): refused on this node at once, on the others within otherNodesWithinSeconds. The password is unchanged; the user logs in again. 400 AUTHENTICATION_DISABLED when no users are configured.",
		tag:     "auth", req: protocol.RevokeTokensRequest{}, ok: 200, service: true,
	},
	health: opDoc{
		summary: "Health: always 200, UP, DEGRADED or DOWN in the body (dashboards). Probes use /monitoring/ready and /monitoring/live.",
		tag:     "monitoring", ok: 200,
	},
	headHealth: opDoc{
		summary: "Health without a body.", tag: "monitoring", ok: 200,
	},
	ready: opDoc{
		summary: "Readiness probe: 200 when UP or DEGRADED; 503 when DOWN or while the node shuts down (draining).",
		tag:     "monitoring", resp: protocol.HealthResponse{}, ok: 200, extra: []int{503},
	},
	headReady: opDoc{
		summary: "Readiness for load balancers, without a body.", tag: "monitoring", ok: 200, extra: []int{503},
	},
	live: opDoc{
		summary: "Liveness probe: 200 while the process serves HTTP, also while it drains; restart the process only when this fails.",
		tag:     "monitoring", ok: 200,
	},
	compatibility: opDoc{
		summary: "Protocol versions this build accepts.",
		tag:     "monitoring", ok: 200,
	},
	streams: opDoc{
		summary: "Every stream (in the user's scope): routing and consumed shard counts, metadata version, active migration.", tag: "admin",
		ok: 200, service: true,
	},
	stream: opDoc{
		summary: "One stream and the names of its groups.", tag: "admin",
		ok: 200, service: true, errs: []error{coordinator.ErrStreamNotFound},
	},
	cluster: opDoc{
		summary: "Every coordinator node: incarnation, address, start time, refusing or not, and the groups it hosts.", tag: "monitoring",
		ok: 200, service: true,
	},
	groups: opDoc{
		summary: "Every group (of the user's streams, for a user scoped to some).", tag: "monitoring", ok: 200, service: true,
	},
	monitorGroup: opDoc{
		summary: "One group (never creates it).", tag: "monitoring", ok: 200, service: true,
		errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	members: opDoc{
		summary: "Members of a group with state, epoch, lease and assignment.", tag: "monitoring",
		ok: 200, service: true, errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	assignments: opDoc{
		summary: "Target and current assignment, revocations in progress and invariant checks.", tag: "monitoring",
		ok: 200, service: true, errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	consumption: opDoc{
		summary: "Per member, per shard progress as members report it.", tag: "monitoring",
		ok: 200, service: true, errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	migrations: opDoc{
		summary: "Migrations of a group and the active one.", tag: "monitoring",
		ok: 200, service: true, errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	offsets: opDoc{
		summary: "Per shard: length, last id, entries read, lag, pending, consumers, memory usage and owner, read from Redis.",
		tag:     "data", ok: 200, service: true, errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound, coordinator.ErrShardKeyNotStream},
	},
	messages: opDoc{
		summary: "Entries of one shard, oldest first from the cursor `from` (exclusive), at most `count`; `next` is the cursor of the following page.",
		tag:     "data", ok: 200, service: true, errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrShardNotFound, coordinator.ErrShardKeyNotStream},
		query: []queryParam{
			{name: "from", typ: "string", description: "entry id to start after (exclusive); empty or \"-\" = from the start"},
			{name: "count", typ: "integer", description: "most entries to return (default 50, at most limits.browse-max-count)"},
		},
	},
	debugActors: opDoc{
		summary: "Live actor state on this node (every stream: 403 for users scoped to some streams).", tag: "debug", ok: 200, service: true,
	},
	debugGroup: opDoc{
		summary: "One group's live actor state on this node.", tag: "debug", ok: 200, service: true,
		errs: []error{coordinator.ErrStreamNotFound, coordinator.ErrGroupNotFound},
	},
	metrics: opDoc{
		summary: "Prometheus metrics (text exposition; every stream: 403 for users scoped to some streams). Also served without authentication on metrics.addr when set.",
		tag:     "monitoring", resp: &huma.Schema{Type: "string"}, contentType: "text/plain", ok: 200,
	},
	openAPI: opDoc{
		summary: "This document.", tag: "docs", resp: &huma.Schema{Type: "object"}, ok: 200,
	},
	docs: opDoc{
		summary: "Offline viewer of this document (HTML, no external resources).", tag: "docs",
		resp: &huma.Schema{Type: "string"}, contentType: "text/html", ok: 200,
	},
}
