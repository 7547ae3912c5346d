package protocol

// Group states shown by monitoring.
const (
	GroupEmpty       = "EMPTY"
	GroupAssigning   = "ASSIGNING"
	GroupReconciling = "RECONCILING"
	GroupStable      = "STABLE"
)

// Member states shown by monitoring.
const (
	MemberStarting = "STARTING"
	MemberActive   = "ACTIVE"
	MemberLeaving  = "LEAVING"
	MemberExpired  = "EXPIRED"
	MemberFenced   = "FENCED"
)

// GroupResponse describes one consumer group.
type GroupResponse struct {
	StreamPrefix             string         `json:"streamPrefix"`
	ConsumerGroup            string         `json:"consumerGroup"`
	State                    string         `json:"state"`
	GroupEpoch               int64          `json:"groupEpoch"`
	AssignmentEpoch          int64          `json:"assignmentEpoch"`
	MetadataVersion          int64          `json:"metadataVersion"`
	ShardCount               int            `json:"shardCount"`
	ActiveMigration          *Migration     `json:"activeMigration"`
	TargetAssignmentSummary  map[string]int `json:"targetAssignmentSummary"`
	CurrentAssignmentSummary map[string]int `json:"currentAssignmentSummary"`
}

// GroupsResponse lists groups.
type GroupsResponse struct {
	Groups []GroupResponse `json:"groups"`
}

// MemberView is one member as monitoring shows it.
type MemberView struct {
	MemberID          string    `json:"memberId"`
	MemberName        string    `json:"memberName"`
	State             string    `json:"state"`
	MemberEpoch       int64     `json:"memberEpoch"`
	CurrentAssignment []ShardID `json:"currentAssignment"`
	TargetAssignment  []ShardID `json:"targetAssignment"`
	Pending           []ShardID `json:"pending"`
	Revoking          []ShardID `json:"revoking"`
	Capacity          Capacity  `json:"runtimeConsumerCapacity"`
	JoinedAt          string    `json:"joinedAt,omitempty"`
	LastHeartbeatAt   string    `json:"lastHeartbeatAt,omitempty"`
	LeaseExpiresAt    string    `json:"leaseExpiresAt,omitempty"`
	StateSince        string    `json:"stateSince,omitempty"`
}

// MembersResponse lists a group's members.
type MembersResponse struct {
	Members []MemberView `json:"members"`
}

// RevokeProgress is one shard on its way from one member to another.
type RevokeProgress struct {
	Shard     ShardID `json:"shard"`
	From      string  `json:"fromMemberId"`
	To        string  `json:"toMemberId,omitempty"`
	Deadline  string  `json:"deadline,omitempty"`
	FromState string  `json:"fromState"`
	InFlight  int     `json:"inFlight"`
}

// AssignmentsResponse shows target against current assignment.
type AssignmentsResponse struct {
	TargetAssignment    map[string][]ShardID `json:"targetAssignment"`
	CurrentAssignments  map[string][]ShardID `json:"currentAssignments"`
	RevokeProgress      []RevokeProgress     `json:"revokeProgress"`
	InvariantViolations []string             `json:"invariantViolations"`
}

// ConsumptionRow is one member's progress on one shard.
type ConsumptionRow struct {
	MemberID        string  `json:"memberId"`
	Shard           ShardID `json:"shard"`
	StreamKey       string  `json:"streamKey"`
	LastDeliveredID string  `json:"lastDeliveredId"`
	LastAckedID     string  `json:"lastAckedId"`
	PendingCount    int64   `json:"pendingCount"`
	UpdatedAt       string  `json:"updatedAt"`
}

// ConsumptionResponse lists consumption progress.
type ConsumptionResponse struct {
	Rows []ConsumptionRow `json:"rows"`
}

// HealthResponse is GET /coord/v1/monitoring/health.
type HealthResponse struct {
	Status        string `json:"status"` // UP, DEGRADED, DOWN
	CoordinatorID string `json:"coordinatorId"`
	Redis         string `json:"redis"` // UP, DOWN
	Loop          string `json:"loop"`  // UP, DOWN: the actor system answers
	Embedded      bool   `json:"embeddedRedis,omitempty"`
	// StateLost is set while the coordinator holds grants because Redis lost
	// its state (status DEGRADED meanwhile).
	StateLost *StateLost `json:"stateLost,omitempty"`
}

// StateLost describes a store data loss the coordinator is waiting out.
type StateLost struct {
	Reason          string `json:"reason"`
	DetectedAt      string `json:"detectedAt"`
	GrantsHeldUntil string `json:"grantsHeldUntil"`
}

// CompatibilityResponse lists supported protocol versions.
type CompatibilityResponse struct {
	SupportedProtocolVersions []int  `json:"supportedProtocolVersions"`
	PreferredProtocolVersion  int    `json:"preferredProtocolVersion"`
	ServerVersion             string `json:"serverVersion"`
}
