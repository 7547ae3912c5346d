package groupstate

import (
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Leases across activation moves (docs/RELIABILITY.md, "Leases across activation moves").
//
// Restore gives every member a fresh lease: after a crash the new activation cannot know when
// a member last heartbeated. But a group whose activation moves often would then keep a dead
// member's lease alive for ever. So an activation that gives the group up gracefully hands its
// members' timers over (HandOver, stored with the release) and the next activation, if nothing
// happened in between, restores them as they were (RestoreHandedOver): a dead member keeps
// its deadline however many graceful moves happen.
//
// A live member's heartbeats are refused while the group moves, so a deadline that falls due
// just after the new activation starts would expire a member that had no chance to heartbeat.
// Such a deadline gets a grace: it is not due before one heartbeat interval after the restore,
// and never more than one heartbeat interval after itself. The grace is volatile and is not
// handed over (HandOver hands over the deadlines themselves), so repeated moves cannot stack
// it: a member whose last accepted heartbeat was at t expires by t + TTL + one heartbeat
// interval, or when the first activation after that instant starts if the group was moving
// then. Only deadlines earned by a heartbeat get the grace; one granted by a restore after a
// crash (LastHeartbeat zero) does not, so each crash move extends a dead member's life by at
// most one TTL.
//
// A slow move is a crash-like case: a member heartbeating every interval had a deadline at least
// TTL − interval after the release, so a restore later than that could expire live members
// whose heartbeats were refused only because nobody hosted the group (a whole coordinator fleet
// restarting, say). Like a store outage, it gives fresh leases instead: a restart alone never
// expires a member that resumes heartbeating (SPEC invariant 4). Such a move takes at least
// TTL − interval, so it extends a dead member's life by one TTL at most, once per slow move.

// Lease is one member's timers as an activation hands them to the next on a graceful release.
type Lease struct {
	// LastHeartbeat is the member's last accepted heartbeat; zero if none since a restore
	// gave it a fresh lease.
	LastHeartbeat time.Time
	// Deadline is the lease deadline (LastHeartbeat + TTL, or the fresh lease of a restore).
	Deadline time.Time
	// RevokeDeadline is when a revocation in progress must be done; zero if none.
	RevokeDeadline time.Time
}

// HandOver returns the timers of every member that holds a lease (all but EXPIRED ones), for
// an activation that gives the group up gracefully. At most one entry per member: its size is
// bounded by the member limits (MaxMembers + MaxRetained).
func (g *Group) HandOver() map[string]Lease {
	out := make(map[string]Lease, len(g.members))
	for id, m := range g.members {
		if m.State == model.StateExpired || m.LeaseDeadline.IsZero() {
			continue
		}
		l := Lease{LastHeartbeat: m.LastHeartbeat.Time(), Deadline: m.LeaseDeadline.Time()}
		if m.State != model.StateFenced && len(m.Revoking) > 0 {
			l.RevokeDeadline = m.RevokeDeadline.Time()
		}
		out[id] = l
	}
	return out
}

// RestoreHandedOver is Restore for an activation that directly follows a graceful release at
// releasedAt; now is when the new activation starts answering. Members found in leases keep
// their timers, moved on by the hand-over's duration (now − releasedAt: nobody could
// heartbeat meanwhile), and capped at what Restore would grant, so a clock that runs ahead never lengthens
// them); the others get Restore's fresh ones. Deadlines earned by a heartbeat that fall due
// within one HeartbeatInterval of now get the hand-over grace (see above). A move slower than
// SlowMove gives everyone fresh leases, as Restore does. The caller must pass leases only if
// no other activation ran between the release that stored them and this one: otherwise (a
// crash, a fenced activation) use Restore.
func RestoreHandedOver(cfg model.Config, meta model.Meta, members []model.Member, leases map[string]Lease, releasedAt, now time.Time) (*Group, error) {
	g, err := Restore(cfg, meta, members, now)
	if err != nil || now.Sub(releasedAt) > SlowMove(cfg) {
		return g, err
	}
	// The timers stood still while nobody answered for the group (release → now): members
	// could not heartbeat, through no fault of theirs, so that time does not count against
	// them. It never makes a timer longer than a fresh one (deadline + pause ≤ release + TTL +
	// pause = now + TTL), and a dead member's life grows only by the time its group was not
	// served at all.
	pause := max(now.Sub(releasedAt), 0)
	for id, l := range leases {
		m := g.members[id]
		if m == nil || m.State == model.StateExpired || l.Deadline.IsZero() {
			continue
		}
		m.LeaseDeadline = model.InstantOf(earlier(l.Deadline.Add(pause), m.LeaseDeadline.Time()))
		if !l.LastHeartbeat.IsZero() && !l.LastHeartbeat.After(now) {
			m.LastHeartbeat = model.InstantOf(l.LastHeartbeat)
		}
		if !m.RevokeDeadline.IsZero() && !l.RevokeDeadline.IsZero() {
			m.RevokeDeadline = model.InstantOf(earlier(l.RevokeDeadline.Add(pause), m.RevokeDeadline.Time()))
		}
	}
	g.graceUntil = now.Add(cfg.HeartbeatInterval)
	return g, nil
}

// SlowMove is the longest hand-over after which the timers handed over are kept: TTL − one
// heartbeat interval, the least time a member heartbeating every interval had left on its
// lease at the release.
func SlowMove(cfg model.Config) time.Duration { return cfg.LeaseTTL - cfg.HeartbeatInterval }

// dueAt is when deadline d of member m falls due: d itself, or, for a deadline earned by a
// heartbeat that a hand-over restored just before it, the end of the hand-over grace but at
// most one heartbeat interval after d.
func dueAt(g *Group, m *model.Member, d time.Time) time.Time {
	if d.IsZero() || m.LastHeartbeat.IsZero() || !d.Before(g.graceUntil) {
		return d
	}
	return earlier(g.graceUntil, d.Add(g.cfg.HeartbeatInterval))
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
