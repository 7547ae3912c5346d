package groupstate

import (
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Overdue members (the heartbeat interval hint itself: groupstate/interval).
//
// Failover: a member that crashes holding shards is noticed only when its lease expires, and the
// other members learn that its shards are free on their next heartbeat. So that this comes
// within a short interval of the expiry rather than up to a whole interval later, a member
// holding shards that has been silent for its lease TTL minus one heartbeat interval is marked
// overdue (MarkOverdue, when its timer armed at OverdueAt fires and Expire finds nothing due), and while one is, every other
// member is told ShortInterval too. That costs at most one heartbeat interval of faster
// heartbeats per crashed member (a member that comes back clears the mark with its heartbeat).

// OverdueAt is when member id becomes overdue (see above), for the shell to arm its timer at
// the earlier of this and NextDeadline; ok false when that does not apply (unknown, expired,
// holding nothing, already marked for its current lease).
func (g *Group) OverdueAt(id string) (time.Time, bool) {
	m := g.members[id]
	if m == nil {
		return time.Time{}, false
	}
	return overdueAt(g, m)
}

// overdueAt is when member m becomes overdue (its lease deadline minus one heartbeat
// interval); ok false when that does not apply: it holds no shard, has no lease, was already
// marked for this lease, or the interval is not shorter than the lease.
func overdueAt(g *Group, m *model.Member) (time.Time, bool) {
	if m.State == model.StateExpired || m.LeaseDeadline.IsZero() || len(m.Assigned)+len(m.Revoking) == 0 ||
		g.cfg.HeartbeatInterval <= 0 || g.cfg.HeartbeatInterval >= g.cfg.LeaseTTL {
		return time.Time{}, false
	}
	if dl, ok := g.overdue[m.ID]; ok && dl.Equal(m.LeaseDeadline.Time()) {
		return time.Time{}, false
	}
	return m.LeaseDeadline.Time().Add(-g.cfg.HeartbeatInterval), true
}

// MarkOverdue records, at now, that member id is overdue if it is (see above): its timer
// fired and Expire found nothing due. It changes only volatile state, like HoldGrantsUntil,
// and reports whether it marked the member. Marks of members that heartbeated since, expired
// or were removed are ignored by othersOverdue and dropped here.
func (g *Group) MarkOverdue(id string, now time.Time) bool {
	for other, dl := range g.overdue {
		if m := g.members[other]; m == nil || m.State == model.StateExpired || !m.LeaseDeadline.Equal(dl) {
			delete(g.overdue, other)
		}
	}
	m := g.members[id]
	if m == nil {
		return false
	}
	at, ok := overdueAt(g, m)
	if !ok || now.Before(at) {
		return false
	}
	if g.overdue == nil {
		g.overdue = map[string]time.Time{}
	}
	g.overdue[id] = m.LeaseDeadline.Time()
	return true
}

// othersOverdue reports whether a member other than id is overdue now (marked, and silent
// since). O(marked members): none in a healthy group.
func othersOverdue(g *Group, id string) bool {
	for other, dl := range g.overdue {
		if other == id {
			continue
		}
		if m := g.members[other]; m != nil && m.State != model.StateExpired && m.LeaseDeadline.Equal(dl) {
			return true
		}
	}
	return false
}
