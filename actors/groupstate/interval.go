package groupstate

import (
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Heartbeat interval hint. A member with nothing in flight heartbeats every
// Config.HeartbeatInterval. A member that is waiting for something — its join to be confirmed
// (STARTING), shards it was given but a previous holder has not released yet (Pending), or
// shards it was told to revoke and has not released yet (Revoking) — is told to come back
// sooner, after ShortInterval. The new owner of a moving shard thus learns it is free within
// a short interval of the release instead of up to a whole interval later, and a joining member
// takes part in the assignment one short interval after its join. The cost is bounded: only
// members with a hand-off in flight heartbeat faster, and for at most the rebalance timeout
// (revocations) or until the previous holder releases or expires (pending shards).
//
// Failover: a member that crashes holding shards is noticed only when its lease expires, and the
// other members learn that its shards are free on their next heartbeat. So that this comes
// within a short interval of the expiry rather than up to a whole interval later, a member
// holding shards that has been silent for its lease TTL minus one heartbeat interval is marked
// overdue (MarkOverdue, when its timer armed at OverdueAt fires and Expire finds nothing due), and while one is, every other
// member is told ShortInterval too. That costs at most one heartbeat interval of faster
// heartbeats per crashed member (a member that comes back clears the mark with its heartbeat).

// MinShortInterval is the floor of ShortInterval: a hand-off in flight never makes a member
// heartbeat more often than this.
const MinShortInterval = 50 * time.Millisecond

// ShortIntervalDivisor divides the heartbeat interval into the short one.
const ShortIntervalDivisor = 10

// ShortInterval is the interval told to members with a hand-off in flight: the heartbeat
// interval / ShortIntervalDivisor, at least MinShortInterval, never more than the interval.
func ShortInterval(cfg model.Config) time.Duration {
	d := max(cfg.HeartbeatInterval/ShortIntervalDivisor, MinShortInterval)
	return min(d, cfg.HeartbeatInterval)
}

// IntervalFor is the heartbeat interval to tell member c (its version after the evaluation)
// in a response with status st: ShortInterval when st lets the member act on its assignment
// (OK, SYNC_METADATA) and the member is STARTING, has Pending shards or
// still has shards to revoke; Config.HeartbeatInterval otherwise.
//
// othersOverdue (Group.othersOverdue) also makes it ShortInterval, for the failover above.
func IntervalFor(cfg model.Config, st model.Status, c *model.Member, othersOverdue bool) time.Duration {
	switch st {
	case model.StatusOK, model.StatusSyncMetadata:
	default:
		return cfg.HeartbeatInterval
	}
	if c == nil || c.Epoch < 0 {
		return cfg.HeartbeatInterval
	}
	if othersOverdue || c.State == model.StateStarting || len(c.Pending) > 0 || len(c.Revoking) > 0 {
		return ShortInterval(cfg)
	}
	return cfg.HeartbeatInterval
}

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
