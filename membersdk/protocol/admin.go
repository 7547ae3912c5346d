package protocol

// CreateStreamRequest is the body of POST /coord/v1/streams/{streamPrefix}.
type CreateStreamRequest struct {
	InitialShardCount *int   `json:"initialShardCount,omitempty"` // nil: defaults.initial-shard-count
	RequestedBy       string `json:"requestedBy"`
	Reason            string `json:"reason,omitempty"`
}

// CreateStreamResponse answers a successful stream creation (201).
type CreateStreamResponse struct {
	StreamPrefix    string `json:"streamPrefix"`
	ShardCount      int    `json:"shardCount"`
	MetadataVersion int64  `json:"metadataVersion"`
}

// CreateGroupRequest is the body of POST /coord/v1/streams/{p}/groups/{g}.
type CreateGroupRequest struct {
	RequestedBy string `json:"requestedBy"`
	Reason      string `json:"reason,omitempty"`
	// Assignment is how the group splits its shards: AssignmentUniform ("" too) or
	// AssignmentCapacity (docs/PROTOCOL.md, assignment modes).
	Assignment string `json:"assignment,omitempty"`
}

// Assignment modes of a group (CreateGroupRequest.Assignment, SetAssignmentRequest).
const (
	// AssignmentUniform: every member gets the same number of shards, within one (default).
	AssignmentUniform = "uniform"
	// AssignmentCapacity: members get shards in proportion to their runtimeMaxConcurrency.
	AssignmentCapacity = "capacity"
)

// SetAssignmentRequest is the body of POST /coord/v1/streams/{p}/groups/{g}/assignment.
type SetAssignmentRequest struct {
	Assignment  string `json:"assignment"`
	RequestedBy string `json:"requestedBy"`
	Reason      string `json:"reason,omitempty"`
}

// DeleteGroupRequest is the body of DELETE /coord/v1/streams/{p}/groups/{g}.
type DeleteGroupRequest struct {
	RequestedBy string `json:"requestedBy"`
	Reason      string `json:"reason"`
	Force       bool   `json:"force,omitempty"`
}

// DeleteGroupResponse answers a group deletion.
type DeleteGroupResponse struct {
	StreamPrefix  string `json:"streamPrefix"`
	ConsumerGroup string `json:"consumerGroup"`
	Deleted       bool   `json:"deleted"`
	LiveMembers   int    `json:"liveMembers"`
}

// DeleteStreamRequest is the body of DELETE /coord/v1/streams/{p}.
type DeleteStreamRequest struct {
	RequestedBy string `json:"requestedBy"`
	Reason      string `json:"reason"`
}

// DeleteStreamResponse answers a stream deletion.
type DeleteStreamResponse struct {
	StreamPrefix string `json:"streamPrefix"`
	Deleted      bool   `json:"deleted"`
}

// ScaleRequest is the body of POST /coord/v1/streams/{p}/scale.
type ScaleRequest struct {
	TargetShardCount *int   `json:"targetShardCount"`
	RequestedBy      string `json:"requestedBy"`
	Reason           string `json:"reason"`
}

// ScaleResponse answers an accepted resharding (202).
type ScaleResponse struct {
	StreamPrefix           string      `json:"streamPrefix"`
	TargetShardCount       int         `json:"targetShardCount"`
	AffectedConsumerGroups []string    `json:"affectedConsumerGroups"`
	Migrations             []Migration `json:"migrations"`
}

// RollbackRequest is the body of a migration rollback.
type RollbackRequest struct {
	RequestedBy string `json:"requestedBy"`
	Reason      string `json:"reason"`
}

// Migration states.
const (
	MigrationPreparing   = "PREPARING"
	MigrationActive      = "ACTIVE"
	MigrationDraining    = "DRAINING"
	MigrationDeprecated  = "DEPRECATED"
	MigrationRollingBack = "ROLLING_BACK"
	MigrationRolledBack  = "ROLLED_BACK"
)

// Migration is one resharding of a stream as seen from one of its groups
// (every group of the stream shows the same reshardingId and states).
type Migration struct {
	ReshardingID   string `json:"reshardingId"`
	StreamPrefix   string `json:"streamPrefix"`
	ConsumerGroup  string `json:"consumerGroup,omitempty"`
	FromShardCount int    `json:"fromShardCount"`
	ToShardCount   int    `json:"toShardCount"`
	State          string `json:"state"`
	CreatedAt      string `json:"createdAt"`
	UpdatedAt      string `json:"updatedAt"`
	RequestedBy    string `json:"requestedBy"`
	Reason         string `json:"reason,omitempty"`
	// RollbackRequestedBy and RollbackReason are set once a rollback was asked for.
	RollbackRequestedBy string `json:"rollbackRequestedBy,omitempty"`
	RollbackReason      string `json:"rollbackReason,omitempty"`
	// MetadataVersion is the routing version this migration activated (0
	// while PREPARING).
	MetadataVersion int64 `json:"metadataVersion"`
	// Waiting says, for an operator, what the migration waits for now
	// ("" once it is finished).
	Waiting string `json:"waiting,omitempty"`
	// Shards lists the shards this migration adds or removes and where each
	// one stands.
	Shards []MigrationShard `json:"shards,omitempty"`
	// History lists the state changes, oldest first.
	History []MigrationStep `json:"history,omitempty"`
}

// MigrationShard is one shard a migration adds or removes.
type MigrationShard struct {
	ShardIndex int    `json:"shardIndex"`
	StreamKey  string `json:"streamKey"`
	// Change is "ADD" or "REMOVE".
	Change string `json:"change"`
	// State: ADD shards PROVISIONED once the stream and every group's
	// consumer group exist; REMOVE shards DRAINING until every consumer group
	// on them has pending 0 and lag 0, then RETIRED.
	State string `json:"state"`
	// RetiredKey is where the stream key was renamed to (kept for the
	// retention time, then expired by Redis).
	RetiredKey string `json:"retiredKey,omitempty"`
	// BlockedBy lists the Redis consumer groups that still hold entries of a
	// draining shard (pending or lag), as last checked.
	BlockedBy []ShardBacklog `json:"blockedBy,omitempty"`
}

// ShardBacklog is one consumer group's unfinished work on a shard.
type ShardBacklog struct {
	ConsumerGroup string `json:"consumerGroup"`
	Pending       int64  `json:"pending"`
	// Lag is -1 when Redis cannot tell.
	Lag int64 `json:"lag"`
}

// MigrationStep is one state change of a migration.
type MigrationStep struct {
	State string `json:"state"`
	At    string `json:"at"`
	Node  string `json:"node,omitempty"`
	Note  string `json:"note,omitempty"`
}

// MigrationsResponse lists a group's migrations.
type MigrationsResponse struct {
	Migrations         []Migration `json:"migrations"`
	ActiveReshardingID *string     `json:"activeReshardingId"`
}

// ProducerRouting tells producers where each shard lives (SPEC §6).
type ProducerRouting struct {
	StreamPrefix     string       `json:"streamPrefix"`
	ConsumerGroup    string       `json:"consumerGroup"`
	MetadataVersion  int64        `json:"metadataVersion"`
	ShardCount       int          `json:"shardCount"`
	StreamKeyPattern string       `json:"streamKeyPattern"`
	Shards           []RouteShard `json:"shards"`
}

// RouteShard is one routing entry.
type RouteShard struct {
	ShardIndex int    `json:"shardIndex"`
	StreamKey  string `json:"streamKey"`
	RedisSlot  int    `json:"redisSlot"`
}

// LoginRequest is the body of POST /coord/v1/auth/login.
type LoginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// LoginResponse carries a bearer token.
type LoginResponse struct {
	AccessToken      string   `json:"accessToken"`
	TokenType        string   `json:"tokenType"`
	ExpiresAt        string   `json:"expiresAt"`
	ExpiresInSeconds int64    `json:"expiresInSeconds"`
	Roles            []string `json:"roles"`
}

// RevokeTokensRequest is the body of POST /coord/v1/auth/users/{username}/revoke-tokens.
type RevokeTokensRequest struct {
	RequestedBy string `json:"requestedBy"`
	Reason      string `json:"reason,omitempty"`
}

// RevokeTokensResponse answers a token revocation: every token of the user
// issued before it carries a lower generation and is refused.
type RevokeTokensResponse struct {
	Username string `json:"username"`
	// TokenGeneration is the user's new token generation.
	TokenGeneration int64 `json:"tokenGeneration"`
	// Configured is false when no auth.users entry of this node has the name
	// (revoking is still recorded: another node may have it).
	Configured bool `json:"configured"`
	// OtherNodesWithinSeconds bounds how long other coordinator nodes may
	// still accept the revoked tokens.
	OtherNodesWithinSeconds int `json:"otherNodesWithinSeconds"`
}
