package groupstate

import (
	"fmt"
	"github.com/redisstream/coordinator/actors/groupstate/answer"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// Static membership (KIP-848). A member that joins with an instanceId is static: the id names
// the instance (e.g. a StatefulSet pod) across restarts, whatever memberId each process uses.
//
//   - One live claim. A join carrying an instanceId that a live member (STARTING or ACTIVE)
//     other than the joiner holds is refused with StatusUnreleasedInstanceID and changes
//     nothing: the first keeps running. The joiner retries at the heartbeat interval.
//   - Temporary leave. memberEpoch -2 (with the member's instanceId) means "I stop for a
//     restart": like a leave, every shard not reported DRAINING or REVOKING is free at once,
//     but the member stays in the target assignment (its target is kept, nobody else is given
//     its shards, groupEpoch does not move) until SessionDeadline = now +
//     Config.StaticSessionTimeout. Its lease deadline is that session deadline: when it
//     passes, the member expires like any member and its shards are reassigned. Heartbeats of
//     the old memberId at a positive epoch are answered UNKNOWN_MEMBER_ID meanwhile. A member
//     still draining at its session deadline becomes LEAVING instead (holdEnded).
//   - Hand-back. A join with the same instanceId while the member is away takes its record
//     over: same memberId → the member rejoins; another memberId → a new record with the old
//     one's state and target replaces it (the old record is deleted, or becomes LEAVING holding
//     what it still drains). No other member's target moves; the new member is granted each
//     target shard once nobody holds it (revoke-before-assign), so the shard fences move to
//     the new member id.
//   - A -2 that cannot be held (no session timeout configured, unknown member, a member not in
//     the target, another instanceId than the member joined with) is handled as a leave (-1).
//   - A crash without -2 is a lease expiry as for any member; a -1 from a static member is a
//     full leave that releases its instanceId.

// temporaryLeave handles memberEpoch -2 (validated: hb.InstanceID is set).
func (g *Group) temporaryLeave(hb *Heartbeat, r answer.Report, now time.Time) Decision {
	m := g.members[hb.MemberID]
	if why := g.unheldReason(hb, m); why != "" {
		d := g.leave(hb, r, now)
		if d.Response.Status == StatusOK {
			d.Response.Message = joinMsg("temporary leave handled as a leave (memberEpoch -1): "+why, d.Response.Message)
		}
		return d
	}
	if s, bad := shardset.FirstMissing(r.Draining, m.Assigned, m.Revoking); bad {
		return g.fenceDecision(m.ID, now, fmt.Sprintf("member %q drains shard %d it was not given", m.ID, s), r.Draining)
	}
	t := newTxn(g, now)
	c := t.mutable(m.ID)
	bindIdentity(c, hb)
	if !m.Away() {
		c.SessionDeadline = now.Add(g.cfg.StaticSessionTimeout)
		c.LastHeartbeat, c.LeaseDeadline = now, c.SessionDeadline
		c.Revoking = shardset.Intersect(shardset.Union(c.Assigned, c.Revoking), r.Draining)
		c.RevokeDeadline = time.Time{}
		if len(c.Revoking) > 0 {
			c.RevokeDeadline = now.Add(g.cfg.RebalanceTimeout)
		}
	} else {
		// Another -2 while away: it reports what it still drains; the hold is not extended.
		c.LastHeartbeat = now
		c.Revoking = shardset.Intersect(c.Revoking, r.Draining)
		if len(c.Revoking) == 0 {
			c.RevokeDeadline = time.Time{}
		}
	}
	if len(c.Revoking) == 0 {
		c.Revoking = nil
	}
	c.Assigned = nil
	c.Pending = c.Target
	resp := t.respond(StatusOK, c, fmt.Sprintf(
		"temporary leave: instance %q keeps its assignment until %s; every shard not reported DRAINING is free now; rejoin with memberEpoch 0 and the same instanceId to get it back",
		c.InstanceID, c.SessionDeadline.UTC().Format(time.RFC3339)))
	resp.MemberEpoch = -2
	resp.Assigned, resp.Pending = []int{}, []int{}
	return Decision{Response: resp, Change: t.change()}
}

// unheldReason says why a temporary leave of m cannot hold its assignment ("" = it can).
func (g *Group) unheldReason(hb *Heartbeat, m *Member) string {
	switch {
	case g.cfg.StaticSessionTimeout <= 0:
		return "coordination.static-session-timeout is 0 on this coordinator"
	case m == nil || m.State == StateExpired:
		return "the member is not known"
	case !m.State.InTarget():
		return fmt.Sprintf("the member is %s", m.State)
	case m.InstanceID != hb.InstanceID:
		return fmt.Sprintf("the member joined with instanceId %q, not %q", m.InstanceID, hb.InstanceID)
	}
	return ""
}

func joinMsg(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}

// instanceRefusal refuses a join whose instanceId another live member holds (nil record m:
// the joiner is unknown). ok false: the join goes on (handBack may take the instance over).
func (g *Group) instanceRefusal(hb *Heartbeat, m *Member) (Decision, bool) {
	owner := g.instanceOwner(hb.InstanceID)
	if owner == nil || owner.ID == hb.MemberID {
		return Decision{}, false
	}
	if owner.Away() && (m == nil || m.State == StateExpired) {
		if owner.Principal == "" || owner.Principal == hb.Principal {
			return Decision{}, false
		}
		return g.reject(hb, StatusOwnedByAnotherPrincipal, 0, fmt.Sprintf(
			"instanceId %q of group %q was joined by another principal; only that principal may take it over", hb.InstanceID, g.meta.ConsumerGroup)), true
	}
	why := "it is running"
	if owner.Away() {
		why = fmt.Sprintf("it is away after a temporary leave, and member id %q is already in use here", hb.MemberID)
	}
	return g.reject(hb, StatusUnreleasedInstanceID, 0, fmt.Sprintf(
		"instanceId %q is held by member %q of group %q (%s); give each process its own instanceId. This process reads nothing and retries joining at the heartbeat interval: the instance is released when that member leaves, hands it over with a temporary leave, or its lease expires",
		hb.InstanceID, owner.ID, g.meta.ConsumerGroup, why)), true
}

// instanceOwner returns the live member holding instanceId id (nil: none).
func (g *Group) instanceOwner(id string) *Member {
	if id == "" {
		return nil
	}
	if mid, ok := g.instances[id]; ok {
		return g.members[mid]
	}
	return nil
}

// handBack evaluates a join of a new memberId with the instanceId of an away member (checked
// by instanceRefusal): the joiner takes the away member's place and target, nothing else
// moves. ok false: no away member holds the instance.
func (g *Group) handBack(hb *Heartbeat, m *Member, now time.Time) (Decision, bool) {
	old := g.instanceOwner(hb.InstanceID)
	if old == nil || old.ID == hb.MemberID || !old.Away() {
		return Decision{}, false
	}
	t := newTxn(g, now)
	c := &Member{ID: hb.MemberID, Name: old.Name, State: old.State, JoinedAt: now, StateSince: now,
		Target: old.Target, InstanceID: old.InstanceID, Principal: old.Principal, Capacity: hb.Capacity}
	if hb.MemberName != "" {
		c.Name = hb.MemberName
	}
	bindIdentity(c, hb)
	t.add(c)
	if len(old.Revoking) == 0 {
		t.remove(old.ID)
	} else {
		// The old process still drains: it keeps those shards (blocking them) as a LEAVING
		// member until it reports them released or its revocation times out.
		o := t.mutable(old.ID)
		t.endHold(o)
		o.State, o.StateSince = StateLeaving, now
		o.Target, o.Pending, o.Assigned = nil, nil, nil
	}
	t.touch(c)
	t.recompute()
	settle(c, nil, t.meta.AssignmentEpoch, now, g.cfg.RebalanceTimeout)
	c.PrevEpoch = 0
	st, allowed, msg := t.metadataStatus(hb.MetadataVersion)
	grant(c, allowed && !g.holding(now), g.holderOf)
	if msg == "" {
		msg = fmt.Sprintf("instance %q: member %q takes over the assignment of %q", c.InstanceID, c.ID, old.ID)
		if len(c.Pending) > 0 {
			msg += fmt.Sprintf("; shards %v follow once the previous process has released them", c.Pending)
		}
	}
	resp := t.respond(st, c, msg)
	if g.holding(now) {
		g.heldResponse(&resp, c, nil)
	}
	return Decision{Response: resp, Change: t.change()}, true
}

// endHold ends the hold of c (the txn's copy) if it is away: a member that still holds shards
// after that (fenced, or draining as LEAVING) keeps them for a lease from its last heartbeat,
// as any member, not for the rest of the session timeout.
func (t *txn) endHold(c *Member) {
	if c.Away() {
		last := c.LastHeartbeat
		if last.IsZero() { // no heartbeat since a restore: a lease from now
			last = t.now
		}
		c.LeaseDeadline = last.Add(t.g.cfg.LeaseTTL)
	}
	c.SessionDeadline = time.Time{}
}

// holdEnded ends, at its session deadline, the hold of an away member that still drains: like
// a member that left while draining, it becomes LEAVING (its target is reassigned) and keeps
// the shards it drains for a lease from its last heartbeat.
func (t *txn) holdEnded(id string) {
	c := t.mutable(id)
	t.bumpGroupEpoch()
	t.endHold(c)
	c.State, c.StateSince = StateLeaving, t.now
	c.Target, c.Pending, c.Assigned = nil, nil, nil
}

// indexInstance and unindexInstance keep Group.instances: instanceId → the live member holding it.
func (g *Group) indexInstance(m *Member) {
	if m.InstanceID != "" && m.State.InTarget() {
		if g.instances == nil {
			g.instances = map[string]string{}
		}
		g.instances[m.InstanceID] = m.ID
	}
}

func (g *Group) unindexInstance(m *Member) {
	if m.InstanceID != "" && m.State.InTarget() && g.instances[m.InstanceID] == m.ID {
		delete(g.instances, m.InstanceID)
	}
}
