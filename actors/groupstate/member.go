package groupstate

import (
	"slices"
	"time"
)

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
	// Principal joined the member (identity.go); "" when member authentication was off.
	Principal string `json:"principal,omitempty"`
	// Incarnation is the process that joined it (identity.go); "" for clients that send none.
	// Never shown by monitoring or debug views: it would let a reader impersonate the process.
	Incarnation string `json:"incarnationId,omitempty"`
	// InstanceID is the static member's stable identity (static.go); "" for dynamic members.
	InstanceID string `json:"instanceId,omitempty"`
	// SessionDeadline is set while a static member is away after a temporary leave: its
	// assignment is kept for the next incarnation with its InstanceID until then (static.go).
	SessionDeadline time.Time `json:"sessionDeadline,omitzero"`

	LastHeartbeat  time.Time `json:"-"`
	LeaseDeadline  time.Time `json:"-"`
	RevokeDeadline time.Time `json:"-"`
}

// Meta is the durable group-level record.
type Meta struct {
	StreamPrefix    string `json:"streamPrefix"`
	ConsumerGroup   string `json:"consumerGroup"`
	GroupEpoch      int64  `json:"groupEpoch"`
	AssignmentEpoch int64  `json:"assignmentEpoch"`
	MetadataVersion int64  `json:"metadataVersion"`
	ShardCount      int    `json:"shardCount"`
}

// inTarget reports whether members in state s take part in the target assignment.
func inTarget(s MemberState) bool { return s == StateStarting || s == StateActive }

// holds reports whether members in state s may still be reading their Assigned ∪ Revoking.
func holds(s MemberState) bool { return s != StateExpired }

func validState(s MemberState) bool {
	switch s {
	case StateStarting, StateActive, StateLeaving, StateExpired, StateFenced:
		return true
	}
	return false
}

// durableEqual reports whether a and b agree on every field that must be persisted.
// Capacity is informational and fluctuates with in-flight work, so a capacity-only change
// is not worth a store write (SPEC §3 inv. 5); it is persisted with the next durable change.
func durableEqual(a, b *Member) bool {
	return a.ID == b.ID && a.Name == b.Name && a.State == b.State && a.Epoch == b.Epoch &&
		a.PrevEpoch == b.PrevEpoch && a.Principal == b.Principal && a.Incarnation == b.Incarnation &&
		a.InstanceID == b.InstanceID && a.SessionDeadline.Equal(b.SessionDeadline) && a.JoinedAt.Equal(b.JoinedAt) && a.StateSince.Equal(b.StateSince) &&
		slices.Equal(a.Target, b.Target) && slices.Equal(a.Assigned, b.Assigned) &&
		slices.Equal(a.Revoking, b.Revoking) && slices.Equal(a.Pending, b.Pending)
}

// deepCopy returns m with its own slices.
func (m Member) deepCopy() Member {
	m.Target = slices.Clone(m.Target)
	m.Assigned = slices.Clone(m.Assigned)
	m.Revoking = slices.Clone(m.Revoking)
	m.Pending = slices.Clone(m.Pending)
	return m
}
