package model

import "time"

// Member is the full record of one member. Durable fields are persisted by the shell as JSON;
// volatile fields (lease, last heartbeat, revoke deadline) are not and are rebuilt by Restore.
// Slices are sorted and treated as immutable once inside a Group or Change.
type Member struct {
	ID         string      `json:"memberId"`
	Name       string      `json:"memberName,omitempty"`
	State      MemberState `json:"state"`
	Epoch      int64       `json:"memberEpoch"`
	PrevEpoch  int64       `json:"previousMemberEpoch"`
	Capacity   Capacity    `json:"capacity"`
	Target     []int       `json:"target"`   // target assignment (live members only)
	Assigned   []int       `json:"assigned"` // may read now
	Revoking   []int       `json:"revoking"` // told to revoke, not yet released
	Pending    []int       `json:"pending"`  // Target − Assigned
	JoinedAt   time.Time   `json:"joinedAt"`
	StateSince time.Time   `json:"stateSince"`
	// Principal joined the member (groupstate/identity.go); "" when member authentication was off.
	Principal string `json:"principal,omitempty"`
	// Incarnation is the process that joined it (groupstate/identity.go); "" for clients that send none.
	// Never shown by monitoring or debug views: it would let a reader impersonate the process.
	Incarnation string `json:"incarnationId,omitempty"`
	// InstanceID is the static member's stable identity (groupstate/static.go); "" for
	// dynamic members.
	InstanceID string `json:"instanceId,omitempty"`
	// Session is the session deadline (SessionDeadline), set while a static member is away
	// after a temporary leave: its assignment is kept for the next incarnation with its
	// InstanceID until then. A pointer, nil when unset (nearly always): 8 bytes in a record a
	// node keeps per member instead of 24.
	Session *time.Time `json:"sessionDeadline,omitzero"`
	// Transport is how the member's last heartbeat reached the coordinator: "" over HTTP (the
	// default, and every record written before transports were recorded), TransportRedis over
	// the Redis mailbox. Durable, so that a restart or a move still knows which members can be
	// nudged (groupstate/nudge.go); it changes, and costs a write, only when a member switches.
	Transport string `json:"transport,omitempty"`

	// Volatile, as Instants (8 bytes each instead of 24: one record per member).
	LastHeartbeat  Instant `json:"-"`
	LeaseDeadline  Instant `json:"-"`
	RevokeDeadline Instant `json:"-"`
}

// Meta is the durable group-level record.
type Meta struct {
	StreamPrefix    string `json:"streamPrefix"`
	ConsumerGroup   string `json:"consumerGroup"`
	GroupEpoch      int64  `json:"groupEpoch"`
	AssignmentEpoch int64  `json:"assignmentEpoch"`
	MetadataVersion int64  `json:"metadataVersion"`
	ShardCount      int    `json:"shardCount"`
	// Assignment is how the target splits the shards ("" = AssignUniform, as before it existed).
	Assignment AssignmentMode `json:"assignment,omitempty"`
	// Paused is set while an operator froze the group's rebalancing (rebalancing.go); zero:
	// rebalancing is active. Older records have none.
	Paused Pause `json:"paused,omitzero"`
}

// MaxIncarnationLength bounds Heartbeat.Incarnation in bytes (the wire decoder and the HTTP
// front check the same limit, membersdk/protocol.MaxIncarnationIDLength): it is stored with the
// member record.
const MaxIncarnationLength = 128

// MaxInstanceIDLength bounds Heartbeat.InstanceID in bytes (membersdk/protocol checks the
// same): it is stored with the member record.
const MaxInstanceIDLength = 128

// Away reports whether m is a static member holding its assignment after a temporary leave
// (memberEpoch -2) until its SessionDeadline.
func (m *Member) Away() bool { return !m.SessionDeadline().IsZero() && m.State.InTarget() }

// SessionDeadline is the static member's session deadline (Session); the zero time if none.
func (m *Member) SessionDeadline() time.Time {
	if m.Session == nil {
		return time.Time{}
	}
	return *m.Session
}

// SetSessionDeadline sets the session deadline (the zero time clears it). It never writes
// through the old pointer: copies of a record share it.
func (m *Member) SetSessionDeadline(t time.Time) {
	if t.IsZero() {
		m.Session = nil
		return
	}
	m.Session = &t
}

// InTarget reports whether members in state s take part in the target assignment.
func (s MemberState) InTarget() bool { return s == StateStarting || s == StateActive }

// Retained reports whether members in state s are kept only for monitoring (EXPIRED, FENCED).
func (s MemberState) Retained() bool { return s == StateExpired || s == StateFenced }

// Valid reports whether s is one of the member states.
func (s MemberState) Valid() bool {
	switch s {
	case StateStarting, StateActive, StateLeaving, StateExpired, StateFenced:
		return true
	}
	return false
}

// Holds reports whether members in state s may still be reading their Assigned ∪ Revoking.
func (s MemberState) Holds() bool { return s != StateExpired }

// Occupies reports whether the member is in the target or may still read a
// shard: while any member of a group occupies it, the group is not idle (the
// shell does not passivate it).
func (m Member) Occupies() bool {
	return m.State.InTarget() || (m.State.Holds() && len(m.Assigned)+len(m.Revoking) > 0)
}
