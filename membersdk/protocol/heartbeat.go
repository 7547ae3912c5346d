package protocol

// Version is the only member protocol version this build speaks.
const Version = 1

// Status is the protocol outcome of a heartbeat. Every outcome is sent with
// HTTP 200; the member acts on the status (see docs/PROTOCOL.md).
type Status string

// Heartbeat statuses (SPEC §4).
const (
	StatusOK                  Status = "OK"
	StatusRetry               Status = "RETRY"
	StatusSyncMetadata        Status = "SYNC_METADATA"
	StatusRevokePending       Status = "REVOKE_PENDING"
	StatusUnknownMemberID     Status = "UNKNOWN_MEMBER_ID"
	StatusFencedMemberEpoch   Status = "FENCED_MEMBER_EPOCH"
	StatusUnsupportedProtocol Status = "UNSUPPORTED_PROTOCOL"
	StatusInvalidRequest      Status = "INVALID_REQUEST"
	// StatusMemberIDInUse: another live process (another incarnationId) holds
	// this member id; the first keeps its shards. The member must read
	// nothing and retry joining at the heartbeat interval.
	StatusMemberIDInUse Status = "MEMBER_ID_IN_USE"
	// StatusUnreleasedInstanceID: another live member holds this join's
	// instanceId (static membership); the first keeps its shards. The member
	// must read nothing and retry joining at the heartbeat interval.
	StatusUnreleasedInstanceID Status = "UNRELEASED_INSTANCE_ID"
)

// Revocation states a member reports for a shard it is giving up.
const (
	RevokeStateRevoking = "REVOKING"
	RevokeStateDraining = "DRAINING"
	RevokeStateRevoked  = "REVOKED"
)

// Member epochs with a special meaning.
const (
	EpochJoin  int64 = 0
	EpochLeave int64 = -1
	// EpochTemporaryLeave is a static member's leave for a restart: its
	// assignment is kept for its instanceId (coordination.static-session-timeout).
	EpochTemporaryLeave int64 = -2
)

// ShardID names one shard of a stream.
type ShardID struct {
	ShardIndex int `json:"shardIndex"`
}

// Capacity is the member runtime's concurrency, reported on every heartbeat.
type Capacity struct {
	RuntimeMaxConcurrency int `json:"runtimeMaxConcurrency"`
	AvailableConcurrency  int `json:"availableConcurrency"`
}

// RevokingShard reports a shard the member is giving up and how far it got.
type RevokingShard struct {
	Shard    ShardID `json:"shard"`
	State    string  `json:"state"`
	InFlight int     `json:"inFlight"`
	AckedAt  *string `json:"ackedAt"`
}

// ShardProgress is the member's data-plane position on one shard; it feeds
// the consumption view and is never used to decide ownership.
type ShardProgress struct {
	Shard           ShardID `json:"shard"`
	StreamKey       string  `json:"streamKey"`
	LastDeliveredID string  `json:"lastDeliveredId,omitempty"`
	LastAckedID     string  `json:"lastAckedId,omitempty"`
	PendingCount    int64   `json:"pendingCount"`
	UpdatedAt       string  `json:"updatedAt,omitempty"`
}

// HeartbeatRequest is the v1 heartbeat body sent by a member.
type HeartbeatRequest struct {
	ProtocolVersion         int             `json:"protocolVersion"`
	RequestID               string          `json:"requestId"`
	MemberID                string          `json:"memberId"`
	MemberName              string          `json:"memberName,omitempty"`
	MemberEpoch             int64           `json:"memberEpoch"`
	MetadataVersion         int64           `json:"metadataVersion"`
	RuntimeConsumerCapacity Capacity        `json:"runtimeConsumerCapacity"`
	OwnedShards             []ShardID       `json:"ownedShards"`
	RevokingShards          []RevokingShard `json:"revokingShards"`
	ShardProgress           []ShardProgress `json:"shardProgress,omitempty"`
	// IncarnationID is an optional opaque per-process marker (at most
	// MaxIncarnationIDLength bytes, name rules of ValidateIncarnationID): two
	// processes that share a memberId are told apart by it, and the second
	// is refused with MEMBER_ID_IN_USE. Clients that omit it work as before.
	IncarnationID string `json:"incarnationId,omitempty"`
	// InstanceID is an optional stable identity across restarts (static
	// membership, KIP-848; name rules of ValidateInstanceID): a temporary
	// leave (memberEpoch -2) keeps the assignment for the next process that
	// joins with the same instanceId. Clients that omit it work as before.
	InstanceID string `json:"instanceId,omitempty"`
	// Principal is the authenticated caller, set by the HTTP front after
	// decoding ("" when member authentication is off); never read from or
	// written to the body.
	Principal string `json:"-"`
	// Transport is how the request reached the coordinator, set by the
	// front that received it: "http" or "redis" (the Redis mailbox). Like
	// Principal, never read from or written to the body.
	Transport string `json:"-"`
}

// Transports of HeartbeatRequest.Transport.
const (
	TransportHTTP  = "http"
	TransportRedis = "redis"
)

// Assignment is the member's full assignment: what it may read now and what
// it will get once previous holders release it.
type Assignment struct {
	AssignedShards  []ShardID `json:"assignedShards"`
	PendingShards   []ShardID `json:"pendingShards"`
	MetadataVersion int64     `json:"metadataVersion"`
}

// HeartbeatResponse is the coordinator's answer to a heartbeat.
type HeartbeatResponse struct {
	ResponseTo          string     `json:"responseTo"`
	Status              Status     `json:"status"`
	MemberID            string     `json:"memberId"`
	MemberEpoch         int64      `json:"memberEpoch"`
	HeartbeatIntervalMs int64      `json:"heartbeatIntervalMs"`
	RebalanceTimeoutMs  int64      `json:"rebalanceTimeoutMs"`
	MemberLeaseTTLMs    int64      `json:"memberLeaseTtlMs"`
	GroupEpoch          int64      `json:"groupEpoch"`
	AssignmentEpoch     int64      `json:"assignmentEpoch"`
	MetadataVersion     int64      `json:"metadataVersion"`
	Assignment          Assignment `json:"assignment"`
	// Message explains a non-OK status for humans; clients must not parse it.
	Message string `json:"message,omitempty"`
}

// ShardIDs converts shard indexes to wire shard ids (never nil).
func ShardIDs(indexes []int) []ShardID {
	out := make([]ShardID, len(indexes))
	for i, s := range indexes {
		out[i] = ShardID{ShardIndex: s}
	}
	return out
}

// Indexes converts wire shard ids to shard indexes (never nil).
func Indexes(ids []ShardID) []int {
	out := make([]int, len(ids))
	for i, s := range ids {
		out[i] = s.ShardIndex
	}
	return out
}
