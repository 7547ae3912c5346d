package group

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate"
)

// The hand-over: an activation that gives its group up gracefully (release)
// stores its members' timers with the release, in the same write
// (persistence.Nodes.ReleaseActivation); the next activation, if it directly
// follows, restores them instead of giving fresh leases
// (groupstate.RestoreHandedOver). However often the activation moves, a dead
// member then expires within TTL + one heartbeat interval (+ the hand-over
// time) of its last heartbeat; see docs/RELIABILITY.md, "Leases across
// activation moves". Steady heartbeats still write nothing: only the release
// does.
//
// Times are offsets from the release, in microseconds, on the releasing
// node's clock; the store measures the age of the release on its own clock
// (GroupSnapshot.HandoverAge), so the nodes need not agree on the wall clock.

// handoverFormat versions the record; a record of another format is ignored
// (fresh leases, as after a crash).
const handoverFormat = 1

// handoverRecord is what a release stores: each member's timers by member id.
type handoverRecord struct {
	Format  int                      `json:"v"`
	Members map[string]handoverTimer `json:"members"`
}

// handoverTimer is one member's groupstate.Lease as offsets from the release.
type handoverTimer struct {
	Heartbeat *int64 `json:"hb,omitempty"` // nil: no heartbeat since a fresh lease
	Lease     int64  `json:"lease"`
	Revoke    *int64 `json:"revoke,omitempty"` // nil: not revoking
}

// encodeHandover encodes leases as offsets from at.
func encodeHandover(leases map[string]groupstate.Lease, at time.Time) []byte {
	rec := handoverRecord{Format: handoverFormat, Members: make(map[string]handoverTimer, len(leases))}
	for id, l := range leases {
		h := handoverTimer{Lease: roundMicros(l.Deadline.Sub(at))}
		if !l.LastHeartbeat.IsZero() {
			v := roundMicros(l.LastHeartbeat.Sub(at))
			h.Heartbeat = &v
		}
		if !l.RevokeDeadline.IsZero() {
			v := roundMicros(l.RevokeDeadline.Sub(at))
			h.Revoke = &v
		}
		rec.Members[id] = h
	}
	b, _ := json.Marshal(rec) // cannot fail: plain strings and integers
	return b
}

// decodeHandover turns a stored hand-over back into leases, releasedAt being
// the release instant on this node's clock.
func decodeHandover(b []byte, releasedAt time.Time) (map[string]groupstate.Lease, error) {
	var rec handoverRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("decode hand-over: %w", err)
	}
	if rec.Format != handoverFormat {
		return nil, fmt.Errorf("decode hand-over: unknown format %d", rec.Format)
	}
	leases := make(map[string]groupstate.Lease, len(rec.Members))
	for id, h := range rec.Members {
		if !offsetInRange(&h.Lease) || !offsetInRange(h.Heartbeat) || !offsetInRange(h.Revoke) {
			return nil, fmt.Errorf("decode hand-over: member %q: offset out of range", id)
		}
		l := groupstate.Lease{Deadline: releasedAt.Add(time.Duration(h.Lease) * time.Microsecond)}
		if h.Heartbeat != nil {
			l.LastHeartbeat = releasedAt.Add(time.Duration(*h.Heartbeat) * time.Microsecond)
		}
		if h.Revoke != nil {
			l.RevokeDeadline = releasedAt.Add(time.Duration(*h.Revoke) * time.Microsecond)
		}
		leases[id] = l
	}
	return leases, nil
}

// maxHandoverOffset bounds a stored offset (a year, in microseconds): a corrupt one
// must not overflow a time.Duration into a deadline long past.
const maxHandoverOffset = int64(365 * 24 * time.Hour / time.Microsecond)

func offsetInRange(us *int64) bool {
	return us == nil || (*us >= -maxHandoverOffset && *us <= maxHandoverOffset)
}

// roundMicros rounds d up to whole microseconds, so that a deadline handed over
// is never earlier than the one in memory.
func roundMicros(d time.Duration) int64 {
	us := d / time.Microsecond
	if d > us*time.Microsecond {
		us++
	}
	return int64(us)
}

// handover returns what release stores for the next activation, or nil when
// memory cannot vouch for the members' timers: no state, a write of unknown
// outcome, or an activation the store has not confirmed lately (members'
// heartbeats were refused meanwhile; the next activation gives fresh leases,
// as after a store outage or a crash).
func (a *groupActor) handover(now time.Time) []byte {
	if a.state == nil || a.unsure || now.Sub(a.confirmedAt) >= a.validity() {
		return nil
	}
	return encodeHandover(a.state.HandOver(), now)
}
