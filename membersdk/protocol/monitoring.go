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
	StreamPrefix    string `json:"streamPrefix"`
	ConsumerGroup   string `json:"consumerGroup"`
	State           string `json:"state"`
	GroupEpoch      int64  `json:"groupEpoch"`
	AssignmentEpoch int64  `json:"assignmentEpoch"`
	MetadataVersion int64  `json:"metadataVersion"`
	ShardCount      int    `json:"shardCount"`
	// Assignment is the group's assignment mode: AssignmentUniform or AssignmentCapacity.
	Assignment               string         `json:"assignment"`
	ActiveMigration          *Migration     `json:"activeMigration"`
	TargetAssignmentSummary  map[string]int `json:"targetAssignmentSummary"`
	CurrentAssignmentSummary map[string]int `json:"currentAssignmentSummary"`
	// Rebalancing is RebalancingActive, or RebalancingPaused while an operator
	// froze the group's voluntary moves (POST …/groups/{g}/rebalancing); then
	// RebalancingPause says who, why and since when. Expired or fenced
	// members' shards are reassigned either way.
	Rebalancing      string            `json:"rebalancing"`
	RebalancingPause *RebalancingPause `json:"rebalancingPause,omitempty"`
}

// Rebalancing states of a group (GroupResponse.Rebalancing).
const (
	RebalancingActive = "active"
	RebalancingPaused = "paused"
)

// RebalancingPause is an operator's pause of a group's rebalancing: who asked
// (requestedBy), why (reason) and since when (since, RFC 3339).
type RebalancingPause struct {
	RequestedBy string `json:"requestedBy"`
	Reason      string `json:"reason"`
	Since       string `json:"since"`
}

// GroupsResponse lists groups.
type GroupsResponse struct {
	Groups []GroupResponse `json:"groups"`
}

// MemberView is one member as monitoring shows it. The fields up to
// ShardProgress carry the reference coordinator's names (dashboards written
// against it read them); the rest are ours.
type MemberView struct {
	MemberID              string          `json:"memberId"`
	MemberName            string          `json:"memberName"`
	State                 string          `json:"state"`
	MemberEpoch           int64           `json:"memberEpoch"`
	MetadataVersion       int64           `json:"metadataVersion"` // the group's metadataVersion (heartbeats keep members in sync)
	RuntimeMaxConcurrency int             `json:"runtimeMaxConcurrency"`
	ActiveConsumerWorkers int             `json:"activeConsumerWorkers"` // runtimeMaxConcurrency − availableConcurrency
	CurrentAssignment     []ShardID       `json:"currentAssignment"`
	GrantedAssignment     []ShardID       `json:"grantedAssignment"` // what its last response let it read (assignedShards)
	Revoking              []ShardID       `json:"revoking"`
	LastHeartbeatAt       string          `json:"lastHeartbeatAt,omitempty"`
	MemberLeaseExpiresAt  string          `json:"memberLeaseExpiresAt,omitempty"`
	RebalanceTimeoutMs    int64           `json:"rebalanceTimeoutMs"`
	RebalanceDeadlineAt   *string         `json:"rebalanceDeadlineAt"` // null unless revoking
	ShardProgress         []ShardProgress `json:"shardProgress"`

	TargetAssignment []ShardID `json:"targetAssignment"`
	Pending          []ShardID `json:"pending"`
	Capacity         Capacity  `json:"runtimeConsumerCapacity"`
	JoinedAt         string    `json:"joinedAt,omitempty"`
	LeaseExpiresAt   string    `json:"leaseExpiresAt,omitempty"` // = memberLeaseExpiresAt (kept for our clients)
	StateSince       string    `json:"stateSince,omitempty"`
	// InstanceID is a static member's stable identity (its heartbeats'
	// instanceId); absent for dynamic members.
	InstanceID string `json:"instanceId,omitempty"`
	// HeldUntil is set while a static member is away on a temporary leave
	// (memberEpoch -2): its targetAssignment is held for the next process
	// with its instanceId, and given to nobody else, until then.
	HeldUntil string `json:"heldUntil,omitempty"`
	// Transport is how the member's last accepted heartbeat arrived: "http"
	// or "redis" (the Redis mailbox).
	Transport string `json:"transport"`
}

// MembersResponse lists a group's members.
type MembersResponse struct {
	Members []MemberView `json:"members"`
	// RecentEvents are the group's latest fencings and expiries, newest
	// first, as the node hosting the group saw them since it activated the
	// group (at most 32; absent while the group is idle). They outlive the
	// member's record: a fenced member that rejoins at once is ACTIVE again
	// in Members, and its fencing is still listed here.
	RecentEvents []MemberEvent `json:"recentEvents,omitempty"`
}

// MemberEvent is one fencing or expiry of a member.
type MemberEvent struct {
	MemberID    string `json:"memberId"`
	State       string `json:"state"` // FENCED or EXPIRED
	MemberEpoch int64  `json:"memberEpoch"`
	At          string `json:"at"`
	// Cause says why: the refused heartbeat's reason, a revocation not
	// finished within the rebalance timeout, or a lease that ran out.
	Cause string `json:"cause"`
}

// RevokeDetail is one shard on its way from one member to another (ours).
type RevokeDetail struct {
	Shard     ShardID `json:"shard"`
	From      string  `json:"fromMemberId"`
	To        string  `json:"toMemberId,omitempty"`
	Deadline  string  `json:"deadline,omitempty"`
	FromState string  `json:"fromState"`
	InFlight  int     `json:"inFlight"`
}

// AssignmentsResponse shows target against current assignment.
// RevokeProgress has the reference's shape: memberId → shards that member is
// still revoking (so they are blocked for their next owner); RevokeDetails
// (ours) adds the next owner and the deadline of each.
type AssignmentsResponse struct {
	TargetAssignment    map[string][]ShardID `json:"targetAssignment"`
	CurrentAssignments  map[string][]ShardID `json:"currentAssignments"`
	RevokeProgress      map[string][]ShardID `json:"revokeProgress"`
	InvariantViolations []string             `json:"invariantViolations"`
	RevokeDetails       []RevokeDetail       `json:"revokeDetails"`
}

// ConsumptionRow is one member's progress on one shard, with the
// reference's field names.
type ConsumptionRow struct {
	StreamPrefix    string  `json:"streamPrefix"`
	ConsumerGroup   string  `json:"consumerGroup"`
	MemberID        string  `json:"memberId"`
	MemberName      string  `json:"memberName"`
	MemberState     string  `json:"memberState"`
	Shard           ShardID `json:"shard"`
	StreamKey       string  `json:"streamKey"`
	LastDeliveredID string  `json:"lastDeliveredId"`
	LastAckedID     string  `json:"lastAckedId"`
	PendingCount    int64   `json:"pendingCount"`
	UpdatedAt       string  `json:"updatedAt"`
}

// ConsumptionResponse lists consumption progress: {"progress":[…]} as the
// reference answers it.
type ConsumptionResponse struct {
	Rows []ConsumptionRow `json:"progress"`
}

// Health statuses.
const (
	HealthUp       = "UP"
	HealthDegraded = "DEGRADED"
	HealthDown     = "DOWN"
	// RedisReadOnly is HealthResponse.Redis while Redis answers but refuses
	// this node's writes (a replica after a failover): status DEGRADED, and
	// the readiness route answers 503 so that balancers send members to a
	// node that can write.
	RedisReadOnly = "READ_ONLY"
)

// HealthResponse is GET /coord/v1/monitoring/health (always HTTP 200, as
// the reference answers it) and GET /coord/v1/monitoring/ready (503 when
// not ready).
type HealthResponse struct {
	Status        string `json:"status"` // UP, DEGRADED, DOWN
	CoordinatorID string `json:"coordinatorId"`
	Redis         string `json:"redis"` // UP, DOWN, READ_ONLY (answers, refuses writes)
	// RedisReason says why Redis is READ_ONLY: its refusal, as Redis worded it.
	RedisReason string `json:"redisReason,omitempty"`
	Loop        string `json:"loop"` // UP, DOWN: the actor system answers
	Embedded    bool   `json:"embeddedRedis,omitempty"`
	// StateLost is set while the coordinator holds grants because Redis lost
	// its state (status DEGRADED meanwhile).
	StateLost *StateLost `json:"stateLost,omitempty"`
	// Cluster is this node's view of the actor host cluster (absent for
	// cluster.provider single).
	Cluster *ClusterHealth `json:"cluster,omitempty"`
	// Refusing is set while this node refuses to serve (shutting down,
	// evicted, or sharing its store with a node outside its cluster): why.
	Refusing string `json:"refusing,omitempty"`
	// NodeConflict is set while other nodes share this node's store (same
	// Redis key prefix) without being members of its cluster. When Refusing,
	// this node registered later and refuses to serve (status DOWN).
	NodeConflict *NodeConflict `json:"nodeConflict,omitempty"`
}

// ClusterHealth is one node's view of the actor host cluster.
type ClusterHealth struct {
	Name     string `json:"name"`
	Provider string `json:"provider"`
	// Self is this node's cluster member id and address.
	Self    ClusterMember   `json:"self"`
	Members []ClusterMember `json:"members"`
	// Blocked lists member ids this node has evicted (they cannot rejoin).
	Blocked []string `json:"blocked"`
}

// ClusterMember is one member of the cluster as a node sees it.
type ClusterMember struct {
	ID      string `json:"id"`
	Address string `json:"address"`
}

// NodeConflict describes nodes that share the store without forming one
// cluster with this node (see docs/OPERATIONS.md, "node refuses to serve").
type NodeConflict struct {
	Refusing bool   `json:"refusing"`
	Reason   string `json:"reason"`
	Since    string `json:"since"`
	// Peers are the conflicting nodes, as they registered in the store.
	Peers []ConflictPeer `json:"peers"`
}

// ConflictPeer is one node that shares the store without being a member of
// this node's cluster.
type ConflictPeer struct {
	NodeID       string `json:"nodeId"`
	Owner        string `json:"owner"`
	ClusterName  string `json:"clusterName,omitempty"`
	Provider     string `json:"provider,omitempty"`
	Address      string `json:"address,omitempty"`
	RegisteredAt string `json:"registeredAt"`
	// Earlier: it registered before this node (so this node is the one that
	// refuses, unless that node refuses itself).
	Earlier bool `json:"earlier"`
	// Refusing: that node refuses to serve (because of a node earlier still).
	Refusing bool `json:"refusing"`
}

// StateLost describes a store data loss the coordinator is waiting out.
type StateLost struct {
	// Case names which check found the loss (docs/RELIABILITY.md, "Redis
	// data loss"); optional, absent from older coordinators.
	Case            string `json:"case,omitempty"`
	Reason          string `json:"reason"`
	DetectedAt      string `json:"detectedAt"`
	GrantsHeldUntil string `json:"grantsHeldUntil"`
}

// VersionRange is an inclusive range of coordination (protocol) versions.
type VersionRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// ReleaseVersion names a release of this coordinator.
type ReleaseVersion struct {
	Major int `json:"major"`
	Minor int `json:"minor"`
	Patch int `json:"patch"`
}

// CoordinationVersion is the lifecycle of one coordination (protocol)
// version, in the reference's shape.
type CoordinationVersion struct {
	Version               int             `json:"version"`
	Status                string          `json:"status"` // ACTIVE, DEPRECATED, REMOVED
	IntroducedIn          ReleaseVersion  `json:"introducedIn"`
	DeprecatedIn          *ReleaseVersion `json:"deprecatedIn"`
	MinimumSupportedUntil ReleaseVersion  `json:"minimumSupportedUntil"`
	RemovedIn             *ReleaseVersion `json:"removedIn"`
}

// CompatibilityResponse is GET /coord/v1/monitoring/compatibility: the
// reference's fields (currentCoordinationVersion,
// supportedCoordinationVersions, coordinationVersions) and ours.
type CompatibilityResponse struct {
	CurrentCoordinationVersion    int                   `json:"currentCoordinationVersion"`
	SupportedCoordinationVersions VersionRange          `json:"supportedCoordinationVersions"`
	CoordinationVersions          []CoordinationVersion `json:"coordinationVersions"`

	SupportedProtocolVersions []int  `json:"supportedProtocolVersions"`
	PreferredProtocolVersion  int    `json:"preferredProtocolVersion"`
	ServerVersion             string `json:"serverVersion"`
}
