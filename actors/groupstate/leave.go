package groupstate

import (
	"fmt"
	"time"
)

// leave handles memberEpoch -1.
//
//   - unknown or EXPIRED member: OK with memberEpoch -1 and no change (idempotent, KAFKA-17116).
//   - nothing held (owned empty, every revoking entry REVOKED): the member is deleted, its
//     shards are free at once; groupEpoch++ if it was in the target.
//   - otherwise it becomes LEAVING: out of the target, everything it had moves to Revoking and
//     is released as it reports; it is deleted once it holds nothing. The rebalance timeout applies.
//   - a FENCED member may leave once it holds nothing; claiming shards it was not given fences.
func (g *Group) leave(hb *Heartbeat, r report, now time.Time) Decision {
	m := g.members[hb.MemberID]
	if m == nil || m.State == StateExpired {
		return g.reject(hb, StatusOK, -1, "")
	}
	if m.State == StateFenced && len(r.held) > 0 {
		return g.reject(hb, StatusFencedMemberEpoch, m.Epoch,
			fmt.Sprintf("member %q is fenced; stop reading every shard at once, then leave again owning nothing", m.ID))
	}
	if s, bad := firstMissing(r.held, m.Assigned, m.Revoking); bad {
		return g.fenceDecision(m.ID, now, fmt.Sprintf("member %q claims shard %d it was not given", m.ID, s), r.held)
	}
	t := newTxn(g, now)
	if inTarget(m.State) {
		t.bumpGroupEpoch()
	}
	if len(r.held) == 0 {
		t.remove(m.ID)
		t.recompute()
		return Decision{Response: t.respond(StatusOK, &Member{ID: m.ID, Epoch: -1}, ""), Change: t.change()}
	}
	c := t.mutable(m.ID)
	if c.State != StateLeaving {
		// Leaving revokes shards the member was allowed to read until now: a new revocation
		// with the full rebalance timeout (also for shards an earlier one was draining).
		c.State, c.StateSince = StateLeaving, now
		c.RevokeDeadline = now.Add(g.cfg.RebalanceTimeout)
	}
	c.Revoking = intersect(union(c.Assigned, c.Revoking), r.held)
	c.Assigned, c.Target, c.Pending = nil, nil, nil
	t.touch(c)
	t.recompute()
	resp := t.respond(StatusOK, c, fmt.Sprintf("leaving: revoke %v, then leave again owning nothing", c.Revoking))
	resp.MemberEpoch = -1
	return Decision{Response: resp, Change: t.change()}
}
