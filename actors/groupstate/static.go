package groupstate

import (
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/answer"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// Static membership (KIP-848): the instanceId index, the record transforms of a temporary leave,
// a hand-back and the end of a hold, the texts of their answers, and when each applies.
//
// The rules, as docs/PROTOCOL.md "Static membership" states them:
//
//   - One live claim. A join carrying an instanceId that a live member (STARTING or ACTIVE)
//     other than the joiner holds is refused UNRELEASED_INSTANCE_ID and changes nothing.
//   - Temporary leave (memberEpoch -2): every shard not reported DRAINING or REVOKING is free at
//     once, but the member stays in the target (nobody else is given its shards, the group
//     epoch does not move) until SessionDeadline, which is also its lease deadline. Past it the
//     member expires like any member; one still draining becomes LEAVING instead.
//   - Hand-back. A join with the same instanceId while the member is away takes its record
//     over (a new memberId gets a new record with the old one's state and target; the old
//     one is deleted, or becomes LEAVING holding what it still drains). No other target moves;
//     each shard is granted once nobody holds it, so the shard fences move to the new id.
//   - A -2 that cannot be held is handled as a leave (-1); a crash is a lease expiry.

// temporaryLeave handles memberEpoch -2 (validated: hb.InstanceID is set).
func (g *Group) temporaryLeave(hb *model.Heartbeat, r answer.Report, now time.Time) Decision {
	m := g.members[hb.MemberID]
	if why := unheldLeave(g.cfg, hb, m); why != "" {
		d := g.leave(hb, r, now)
		if d.Response.Status == model.StatusOK {
			d.Response.Message = "temporary leave handled as a leave (memberEpoch -1): " + why
		}
		return d
	}
	if s, bad := shardset.FirstMissing(r.Draining, m.Assigned, m.Revoking); bad {
		return fenceDecision(g, m.ID, now, fmt.Sprintf("member %q drains shard %d it was not given", m.ID, s), r.Draining)
	}
	t := newTxn(g, now)
	c := t.mutable(m.ID)
	bindIdentity(c, hb)
	holdLeave(c, r.Draining, now, g.cfg)
	resp := t.respond(model.StatusOK, c, leftMessage(c))
	resp.MemberEpoch = -2
	resp.Assigned, resp.Pending = []int{}, []int{}
	return Decision{Response: resp, Change: t.change()}
}

// instanceRefusal refuses a join whose instanceId another live member holds (m: the joiner's
// record, nil if unknown). ok false: the join goes on (handBack may take the instance over).
func instanceRefusal(g *Group, hb *model.Heartbeat, m *model.Member) (Decision, bool) {
	owner := g.members[g.instances.owner(hb.InstanceID)]
	switch {
	case owner == nil || owner.ID == hb.MemberID:
		return Decision{}, false
	case owner.Away() && (m == nil || m.State == model.StateExpired):
		if owner.Principal == "" || owner.Principal == hb.Principal {
			return Decision{}, false
		}
		return reject(g, hb, model.StatusOwnedByAnotherPrincipal, 0, fmt.Sprintf(
			"instanceId %q of group %q was joined by another principal; only that principal may take it over", hb.InstanceID, g.meta.ConsumerGroup)), true
	}
	return reject(g, hb, model.StatusUnreleasedInstanceID, 0, instanceRefusedMessage(hb, owner, g.meta.ConsumerGroup)), true
}

// handBack evaluates a join of a new memberId with the instanceId of an away member (checked
// by instanceRefusal): the joiner takes the away member's place and target, nothing else
// moves. ok false: no away member holds the instance.
func (g *Group) handBack(hb *model.Heartbeat, now time.Time) (Decision, bool) {
	old := g.members[g.instances.owner(hb.InstanceID)]
	if old == nil || old.ID == hb.MemberID || !old.Away() {
		return Decision{}, false
	}
	t := newTxn(g, now)
	c := successorOf(old, hb, now)
	bindIdentity(c, hb)
	t.add(c)
	if len(old.Revoking) == 0 {
		t.remove(old.ID)
	} else {
		// The old process still drains: it keeps those shards (blocking them) as a LEAVING
		// member until it reports them released or its revocation times out.
		depart(t.mutable(old.ID), now, g.restoredAt, g.cfg.LeaseTTL)
	}
	t.touch(c)
	t.recompute()
	settle(c, nil, t.meta.AssignmentEpoch, now, g.cfg.RebalanceTimeout, t.revokeBudget(c.ID))
	c.PrevEpoch = 0
	st, allowed, msg := t.metadataStatus(hb.MetadataVersion)
	grant(c, allowed && !g.holding(now), g.holder.Of)
	if msg == "" {
		msg = handBackMessage(c, old.ID)
	}
	resp := t.respond(st, c, msg)
	if g.holding(now) {
		heldResponse(g, &resp, c, nil)
	}
	return Decision{Response: resp, Change: t.change()}, true
}

// holdEnded ends, at its session deadline, the hold of an away member that still drains: like
// a member that left while draining, it becomes LEAVING (its target is reassigned).
func (t *txn) holdEnded(id string) {
	t.bumpGroupEpoch()
	depart(t.mutable(id), t.now, t.g.restoredAt, t.g.cfg.LeaseTTL)
}

// instanceIndex maps the instanceId of every live static member to its member id. The zero value is
// empty and ready to use.
type instanceIndex struct{ ids map[string]string }

// add indexes m if it is a live static member.
func (x *instanceIndex) add(m *model.Member) {
	if m.InstanceID != "" && m.State.InTarget() {
		if x.ids == nil {
			x.ids = map[string]string{}
		}
		x.ids[m.InstanceID] = m.ID
	}
}

// remove drops m's entry, if m is the member the index names for its instance.
func (x *instanceIndex) remove(m *model.Member) {
	if m.InstanceID != "" && m.State.InTarget() && x.ids[m.InstanceID] == m.ID {
		delete(x.ids, m.InstanceID)
	}
}

// owner returns the member id holding instance ("" = none).
func (x *instanceIndex) owner(instance string) string {
	if instance == "" {
		return ""
	}
	return x.ids[instance]
}

// count returns the number of indexed instances.
func (x *instanceIndex) count() int { return len(x.ids) }

// unheldLeave says why a temporary leave of m (nil: unknown) cannot hold its assignment ("" = it can).
func unheldLeave(cfg model.Config, hb *model.Heartbeat, m *model.Member) string {
	switch {
	case cfg.StaticSessionTimeout <= 0:
		return "coordination.static-session-timeout is 0 on this coordinator"
	case m == nil || m.State == model.StateExpired:
		return "the member is not known"
	case !m.State.InTarget():
		return fmt.Sprintf("the member is %s", m.State)
	case m.InstanceID != hb.InstanceID:
		return fmt.Sprintf("the member joined with instanceId %q, not %q", m.InstanceID, hb.InstanceID)
	}
	return ""
}

// holdLeave applies a temporary leave at now to c (a copy of the member's record) that reports
// draining as still held: the hold starts (unless c is already away: the hold is not
// extended), nothing stays assigned, the target stays whole.
func holdLeave(c *model.Member, draining []int, now time.Time, cfg model.Config) {
	if !c.Away() {
		c.SetSessionDeadline(now.Add(cfg.StaticSessionTimeout))
		c.LeaseDeadline = model.InstantOf(c.SessionDeadline())
		c.Revoking = shardset.Intersect(shardset.Union(c.Assigned, c.Revoking), draining)
		c.RevokeDeadline = 0
		if len(c.Revoking) > 0 {
			c.RevokeDeadline = model.InstantOf(now.Add(cfg.RebalanceTimeout))
		}
	} else {
		c.Revoking = shardset.Intersect(c.Revoking, draining)
	}
	c.LastHeartbeat = model.InstantOf(now)
	if len(c.Revoking) == 0 {
		c.Revoking, c.RevokeDeadline = nil, 0
	}
	c.Assigned, c.Pending = nil, c.Target
}

// successorOf is the record of hb's process taking over away member old at now: old's state,
// target and identity, a fresh join otherwise.
func successorOf(old *model.Member, hb *model.Heartbeat, now time.Time) *model.Member {
	c := &model.Member{ID: hb.MemberID, Name: old.Name, State: old.State, JoinedAt: now, StateSince: now,
		Target: old.Target, InstanceID: old.InstanceID, Principal: old.Principal, Capacity: hb.Capacity}
	if hb.MemberName != "" {
		c.Name = hb.MemberName
	}
	return c
}

// endHold ends c's hold, if it is away: a member still holding shards after that (fenced, or
// draining as LEAVING) keeps them for a lease of ttl from its last heartbeat, not for the rest
// of the session timeout. A restore (at restoredAt) keeps no heartbeat time: the member was told
// OK at the latest then, or at its session deadline when the hold ended by the wall clock
// before that, so the lease runs from the later of restoredAt and the earlier of now and the
// session deadline. Never from a timer that fired late (a clock jump, a paused coordinator):
// that would keep a dead member's shards past lease + session timeout.
func endHold(c *model.Member, now, restoredAt time.Time, ttl time.Duration) {
	if c.Away() {
		last := c.LastHeartbeat.Time()
		if last.IsZero() {
			last = now
			if c.SessionDeadline().Before(last) {
				last = c.SessionDeadline()
			}
			if last.Before(restoredAt) {
				last = restoredAt
			}
		}
		c.LeaseDeadline = model.InstantOf(last.Add(ttl))
	}
	c.SetSessionDeadline(time.Time{})
}

// depart makes c, an away member that still drains, a LEAVING member at now: out of the
// target, holding only what it drains (endHold sets its lease).
func depart(c *model.Member, now, restoredAt time.Time, ttl time.Duration) {
	endHold(c, now, restoredAt, ttl)
	c.State, c.StateSince = model.StateLeaving, now
	c.Target, c.Pending, c.Assigned = nil, nil, nil
}

// leftMessage answers a held temporary leave of c.
func leftMessage(c *model.Member) string {
	return fmt.Sprintf("temporary leave: instance %q keeps its assignment until %s; every shard not reported DRAINING is free now; rejoin with memberEpoch 0 and the same instanceId to get it back",
		c.InstanceID, c.SessionDeadline().UTC().Format(time.RFC3339))
}

// awayMessage answers a heartbeat at a positive epoch of away member m.
func awayMessage(m *model.Member) string {
	return fmt.Sprintf("member %q left temporarily (memberEpoch -2); instance %q keeps its assignment until %s: stop reading every shard and rejoin with memberEpoch 0 and the same instanceId",
		m.ID, m.InstanceID, m.SessionDeadline().UTC().Format(time.RFC3339))
}

// instanceRefusedMessage answers a join of hb refused because owner holds its instanceId in group.
func instanceRefusedMessage(hb *model.Heartbeat, owner *model.Member, group string) string {
	why := "it is running"
	if owner.Away() {
		why = fmt.Sprintf("it is away after a temporary leave, and member id %q is already in use here", hb.MemberID)
	}
	return fmt.Sprintf("instanceId %q is held by member %q of group %q (%s); give each process its own instanceId. This process reads nothing and retries joining at the heartbeat interval: the instance is released when that member leaves, hands it over with a temporary leave, or its lease expires",
		hb.InstanceID, owner.ID, group, why)
}

// handBackMessage answers the join of c taking over from member oldID.
func handBackMessage(c *model.Member, oldID string) string {
	msg := fmt.Sprintf("instance %q: member %q takes over the assignment of %q", c.InstanceID, c.ID, oldID)
	if len(c.Pending) > 0 {
		msg += fmt.Sprintf("; shards %v follow once the previous process has released them", c.Pending)
	}
	return msg
}
