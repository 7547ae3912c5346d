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

// Migration is one resharding of one group.
type Migration struct {
	ReshardingID   string `json:"reshardingId"`
	FromShardCount int    `json:"fromShardCount"`
	ToShardCount   int    `json:"toShardCount"`
	State          string `json:"state"`
	CreatedAt      string `json:"createdAt"`
	UpdatedAt      string `json:"updatedAt"`
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
