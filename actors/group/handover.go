package group

import (
	"time"

	"github.com/redisstream/coordinator/actors/group/handover"
)

// The hand-over record (group/handover): a graceful release stores the members' timers so
// that the next activation, if it directly follows, restores them instead of giving fresh
// leases; see docs/RELIABILITY.md, "Leases across activation moves".

// handover returns what release stores for the next activation, or nil when
// memory cannot vouch for the members' timers: no state, a write of unknown
// outcome, or an activation the store has not confirmed lately (members'
// heartbeats were refused meanwhile; the next activation gives fresh leases,
// as after a store outage or a crash).
func (a *groupActor) handover(now time.Time) []byte {
	if a.state == nil || a.unsure || now.Sub(a.confirmedAt) >= a.validity() {
		return nil
	}
	return handover.Encode(a.state.HandOver(), now)
}
