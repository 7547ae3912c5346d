package coordinator

import (
	"context"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Service is everything a transport offers: one value implementing every
// use (the actor host does). Every method is safe for concurrent use.
// Errors are the sentinels of errors.go, wrapped with context; transports
// map them to their answers. Callers validate names and bodies before they
// call: invalid input never reaches the Service.
type Service interface {
	Members
	Admin
	Monitoring
	Browse
	Debug
}

// Members is what the members' SDK calls: consumers heartbeat (joining,
// leaving and acknowledging revocations are heartbeats too), producers ask
// for the routing of a group.
type Members interface {
	// Heartbeat routes a decoded heartbeat to the group's actor. Protocol
	// outcomes (FENCED, RETRY, …) come back in the response, not as errors.
	// A heartbeat for a member id another principal joined is
	// ErrMemberOwnedByAnotherPrincipal and changes nothing.
	Heartbeat(ctx context.Context, streamPrefix, group, pathMemberID string, req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, error)

	// ProducerRouting creates the group on first use (stream must exist)
	// unless groups.creation is explicit (then an unknown group is
	// ErrGroupNotFound): the reference's producers ask for routing before
	// any member joins, and rely on the group's Redis consumer group
	// existing from then on.
	ProducerRouting(ctx context.Context, streamPrefix, group string) (protocol.ProducerRouting, error)
}

// Admin creates and deletes streams and groups, reshards a stream and reads
// or rolls back its migrations.
type Admin interface {
	CreateStream(ctx context.Context, streamPrefix string, req protocol.CreateStreamRequest) (protocol.CreateStreamResponse, error)
	// CreateGroup creates a group of an existing stream (its Redis consumer
	// group on every shard, then its stored state): ErrGroupExists if it
	// exists, ErrLimitExceeded if the stream has limits.groups-per-stream.
	// It is the only way to create a group when groups.creation is explicit.
	CreateGroup(ctx context.Context, streamPrefix, group string, req protocol.CreateGroupRequest) (protocol.GroupResponse, error)
	// Group returns an existing group; it never creates one (an unknown
	// group is ErrGroupNotFound, as the reference answers a GET).
	Group(ctx context.Context, streamPrefix, group string) (protocol.GroupResponse, error)
	DeleteGroup(ctx context.Context, streamPrefix, group string, req protocol.DeleteGroupRequest) (protocol.DeleteGroupResponse, error)
	// SetAssignment sets an existing group's assignment mode (uniform or capacity) and
	// returns the group: ErrInvalidArgument for another mode, ErrGroupNotFound.
	SetAssignment(ctx context.Context, streamPrefix, group string, req protocol.SetAssignmentRequest) (protocol.GroupResponse, error)
	// DeleteStream deletes a stream with 0 shards, no migration in progress
	// and no groups; otherwise ErrStreamNotEmpty naming what is left.
	DeleteStream(ctx context.Context, streamPrefix string, req protocol.DeleteStreamRequest) (protocol.DeleteStreamResponse, error)

	Scale(ctx context.Context, streamPrefix string, req protocol.ScaleRequest) (protocol.ScaleResponse, error)
	Migration(ctx context.Context, streamPrefix, group, reshardingID string) (protocol.Migration, error)
	Rollback(ctx context.Context, streamPrefix, group, reshardingID string, req protocol.RollbackRequest) (protocol.Migration, error)
	// StreamMigrations, StreamMigration and StreamRollback act on a
	// stream's migrations whether or not it has groups (the views name no
	// group): ErrStreamNotFound, ErrMigrationNotFound, ErrRollbackNotAllowed.
	StreamMigrations(ctx context.Context, streamPrefix string) (protocol.MigrationsResponse, error)
	StreamMigration(ctx context.Context, streamPrefix, reshardingID string) (protocol.Migration, error)
	StreamRollback(ctx context.Context, streamPrefix, reshardingID string, req protocol.RollbackRequest) (protocol.Migration, error)
}

// Monitoring reads the coordinator's health, its streams and its groups.
// No method creates anything.
type Monitoring interface {
	Health(ctx context.Context) protocol.HealthResponse
	Groups(ctx context.Context) (protocol.GroupsResponse, error)
	// Streams lists every stream; Stream describes one (ErrStreamNotFound).
	Streams(ctx context.Context) (protocol.StreamsResponse, error)
	Stream(ctx context.Context, streamPrefix string) (protocol.StreamView, error)
	// MonitorGroup, Members, Assignments, Consumption and Migrations never
	// create a group: an unknown one is ErrGroupNotFound.
	MonitorGroup(ctx context.Context, streamPrefix, group string) (protocol.GroupResponse, error)
	Members(ctx context.Context, streamPrefix, group string) (protocol.MembersResponse, error)
	Assignments(ctx context.Context, streamPrefix, group string) (protocol.AssignmentsResponse, error)
	Consumption(ctx context.Context, streamPrefix, group string) (protocol.ConsumptionResponse, error)
	Migrations(ctx context.Context, streamPrefix, group string) (protocol.MigrationsResponse, error)
	// Cluster lists the coordinator nodes this node knows of and the groups
	// each hosts.
	Cluster(ctx context.Context) (protocol.ClusterResponse, error)
}

// Browse reads what Redis holds for a stream: offsets per shard and the
// entries of one shard stream.
type Browse interface {
	// Offsets reports, per shard of an existing group, what Redis says of
	// the shard stream and the group's consumer group on it, with the
	// coordinator's current and target owner. Unknown group:
	// ErrGroupNotFound (it is never created).
	Offsets(ctx context.Context, streamPrefix, group string) (protocol.OffsetsResponse, error)
	// Messages reads up to count entries of shard `shard` strictly after
	// cursor `from` ("-" = from the start). ErrStreamNotFound for an unknown
	// stream, ErrShardNotFound for a shard outside the stream: only shards
	// 0 ≤ shard < the consuming shard count are read (the routing count,
	// plus the shards a scale-in still drains), whatever other keys of the
	// same name exist; ErrShardKeyNotStream when the key holds no stream.
	// The caller validates from and count before calling.
	Messages(ctx context.Context, streamPrefix string, shard int, from string, count int) (protocol.MessagesResponse, error)
}

// Debug shows live actor state, for operators.
type Debug interface {
	// DebugActors and DebugGroup return live actor state on this node as a
	// JSON-encodable value.
	DebugActors(ctx context.Context) (any, error)
	DebugGroup(ctx context.Context, streamPrefix, group string) (any, error)
}
