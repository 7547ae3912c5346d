package model

import "time"

// Config holds the coordination timings and limits of one group. Every limit is off at its zero
// value.
type Config struct {
	HeartbeatInterval time.Duration // told to members
	LeaseTTL          time.Duration // member-lease-ttl
	RebalanceTimeout  time.Duration // revocation must finish within this
	Retention         time.Duration // how long EXPIRED/FENCED members stay visible before Prune drops them

	// MaxMembers bounds the members that are not EXPIRED or FENCED (STARTING, ACTIVE, LEAVING).
	// A join that would exceed it is refused with RETRY and Response.Limit
	// LimitMembersPerGroup; nothing is stored.
	MaxMembers int
	// MaxRetained bounds the EXPIRED and FENCED members kept for monitoring. When an evaluation
	// would leave more, its Change also deletes the oldest (by StateSince, then id) among those
	// that hold nothing; a FENCED member still holding shards is never dropped early, since
	// its shards must stay blocked until its lease runs out.
	MaxRetained int
	// JoinRate is the sustained rate of new members (ids the group does not know or has
	// expired) per second, as a token bucket of JoinBurst tokens (JoinBurst ≤ 0: max(1, JoinRate)).
	// The bucket is volatile (a restart refills it) and runs on the evaluation's now. A join
	// beyond it is refused with RETRY and Response.Limit LimitJoinsPerSecond; nothing is stored.
	// Rejoins of known members are not limited: they are recoveries, not growth.
	JoinRate  float64
	JoinBurst int
	// MaxMovesPerRound and MaxMovesFraction cap the voluntary revocations in flight at once in
	// the group (assignment.max-moves-per-round, assignment.max-moves-fraction): shards a live
	// member is told to give up for another live member. The cap is the smaller of the two that
	// are set (the fraction of the shard count rounded up, at least 1); 0 = no cap. Shards of
	// expired, fenced, leaving or departed members are never counted nor held back.
	MaxMovesPerRound int
	MaxMovesFraction float64
	// StaticSessionTimeout is how long a static member's temporary leave (memberEpoch -2) keeps
	// its assignment for the next incarnation with the same instanceId (groupstate/static.go).
	// 0: a temporary leave is handled as a leave.
	StaticSessionTimeout time.Duration
}

// Config keys named by refused joins (Response.Limit) so that the shell can count them.
const (
	LimitMembersPerGroup = "limits.members-per-group"
	LimitJoinsPerSecond  = "limits.joins-per-second"
)

// Status is the protocol outcome of one heartbeat (SPEC §4).
type Status string

// Heartbeat statuses.
const (
	StatusOK                  Status = "OK"
	StatusRetry               Status = "RETRY"
	StatusSyncMetadata        Status = "SYNC_METADATA"
	StatusUnknownMemberID     Status = "UNKNOWN_MEMBER_ID"
	StatusFencedMemberEpoch   Status = "FENCED_MEMBER_EPOCH"
	StatusUnsupportedProtocol Status = "UNSUPPORTED_PROTOCOL"
	StatusInvalidRequest      Status = "INVALID_REQUEST"
	// StatusMemberIDInUse: another live process (another incarnation) holds the member id
	// (groupstate/identity.go). The first keeps everything; this one must not read and retries joining.
	StatusMemberIDInUse Status = "MEMBER_ID_IN_USE"
	// StatusOwnedByAnotherPrincipal: the member id was joined by another principal
	// (groupstate/identity.go). Never sent as a protocol status: the shell answers it as an error
	// (HTTP 403 MEMBER_OWNED_BY_ANOTHER_PRINCIPAL).
	StatusOwnedByAnotherPrincipal Status = "MEMBER_OWNED_BY_ANOTHER_PRINCIPAL"
	// StatusUnreleasedInstanceID: another live member holds the join's instanceId
	// (groupstate/static.go, Kafka's UNRELEASED_INSTANCE_ID). The first keeps everything; this
	// one must not read and retries joining at the heartbeat interval.
	StatusUnreleasedInstanceID Status = "UNRELEASED_INSTANCE_ID"
)

// MemberState is the lifecycle state of a member as shown by monitoring.
type MemberState string

// Member states.
const (
	StateStarting MemberState = "STARTING" // joined, no heartbeat accepted since
	StateActive   MemberState = "ACTIVE"
	StateLeaving  MemberState = "LEAVING" // sent epoch -1 while still holding shards
	StateExpired  MemberState = "EXPIRED" // lease passed; holds nothing; retained for debugging
	StateFenced   MemberState = "FENCED"  // out of the target, but its shards stay blocked
)

// RevokeState is a member's report about one shard it was told to revoke.
type RevokeState string

// Revoke states. REVOKING and DRAINING mean "still held"; REVOKED means released.
const (
	RevokeRevoking RevokeState = "REVOKING"
	RevokeDraining RevokeState = "DRAINING"
	RevokeRevoked  RevokeState = "REVOKED"
)

// AssignmentMode is how a group's target splits its shards among the members taking part
// (Meta.Assignment; the admin API's assignment setting).
type AssignmentMode string

// Assignment modes.
const (
	// AssignUniform: every member gets the same number of shards, within one (the default;
	// stored as "").
	AssignUniform AssignmentMode = "uniform"
	// AssignCapacity: members get shards in proportion to their reported
	// runtimeMaxConcurrency (groupstate/assign, weighted.go).
	AssignCapacity AssignmentMode = "capacity"
)

// Valid reports whether m is a known mode ("" reads as AssignUniform).
func (m AssignmentMode) Valid() bool { return m == "" || m == AssignUniform || m == AssignCapacity }

// Effective returns m, or AssignUniform when m is "" (a group stored before the setting existed).
func (m AssignmentMode) Effective() AssignmentMode {
	if m == "" {
		return AssignUniform
	}
	return m
}

// Capacity is the member's runtime consumer capacity: runtimeMaxConcurrency is also its weight
// in a group using AssignCapacity.
type Capacity struct {
	MaxConcurrency int `json:"runtimeMaxConcurrency"`
	Available      int `json:"availableConcurrency"`
}

// RevokingShard is one entry of a heartbeat's revokingShards.
type RevokingShard struct {
	Shard    int
	State    RevokeState
	InFlight int
}

// Heartbeat is a decoded v1 request (JSON already parsed by the shell; semantic validation is ours).
type Heartbeat struct {
	ProtocolVersion int
	RequestID       string
	PathMemberID    string // memberId from the URL; must equal MemberID
	MemberID        string
	MemberName      string
	MemberEpoch     int64
	MetadataVersion int64
	Capacity        Capacity
	Owned           []int
	Revoking        []RevokingShard
	// Incarnation is the heartbeat's incarnationId ("" = none): the sending process.
	Incarnation string
	// InstanceID is the heartbeat's instanceId ("" = none): the stable identity of a static
	// member across restarts (groupstate/static.go).
	InstanceID string
	// Principal is the authenticated caller that sent it ("" = member authentication off).
	Principal string
	// Transport is how it arrived: TransportHTTP (or "") or TransportRedis.
	Transport string
}

// Transports a heartbeat arrives through (Heartbeat.Transport, Member.Transport).
const (
	TransportHTTP  = "http"  // POST …/heartbeat; a member record keeps "" for it
	TransportRedis = "redis" // the Redis mailbox (docs/PROTOCOL.md, "Redis mailbox")
)

// Response is the protocol answer to one heartbeat. Assigned and Pending are sorted full sets,
// never nil; they may share the group's (immutable) slices, so the caller may keep them but
// must not modify them.
type Response struct {
	Status          Status
	MemberID        string
	MemberEpoch     int64
	GroupEpoch      int64
	AssignmentEpoch int64
	MetadataVersion int64
	Assigned        []int
	Pending         []int
	Message         string // for non-OK statuses: what happened and what the member must do
	// Limit is the config key of the limit that refused this request (LimitMembersPerGroup,
	// LimitJoinsPerSecond), "" otherwise: the shell counts refusals by it.
	Limit string
	// IDInUse: refused because another incarnation holds the member id (groupstate/identity.go); Status
	// is StatusMemberIDInUse, or StatusFencedMemberEpoch for a heartbeat without incarnation.
	// The shell logs and counts the conflict by it.
	IDInUse bool
	// HeartbeatInterval is when the member should heartbeat next (heartbeatIntervalMs):
	// Config.HeartbeatInterval, or ShortInterval while a hand-off of its is in flight
	// (groupstate/interval.go).
	HeartbeatInterval time.Duration
}
