package groupstate

import (
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/answer"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
	"github.com/redisstream/coordinator/actors/groupstate/static"
)

// Static membership (KIP-848): when each rule of groupstate/static applies.

// temporaryLeave handles memberEpoch -2 (validated: hb.InstanceID is set).
func (g *Group) temporaryLeave(hb *model.Heartbeat, r answer.Report, now time.Time) Decision {
	m := g.members[hb.MemberID]
	if why := static.Unheld(g.cfg, hb, m); why != "" {
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
	static.Leave(c, r.Draining, now, g.cfg)
	resp := t.respond(model.StatusOK, c, static.LeftMessage(c))
	resp.MemberEpoch = -2
	resp.Assigned, resp.Pending = []int{}, []int{}
	return Decision{Response: resp, Change: t.change()}
}

// instanceRefusal refuses a join whose instanceId another live member holds (m: the joiner's
// record, nil if unknown). ok false: the join goes on (handBack may take the instance over).
func instanceRefusal(g *Group, hb *model.Heartbeat, m *model.Member) (Decision, bool) {
	owner := g.members[g.instances.Owner(hb.InstanceID)]
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
	return reject(g, hb, model.StatusUnreleasedInstanceID, 0, static.RefusedMessage(hb, owner, g.meta.ConsumerGroup)), true
}

// handBack evaluates a join of a new memberId with the instanceId of an away member (checked
// by instanceRefusal): the joiner takes the away member's place and target, nothing else
// moves. ok false: no away member holds the instance.
func (g *Group) handBack(hb *model.Heartbeat, now time.Time) (Decision, bool) {
	old := g.members[g.instances.Owner(hb.InstanceID)]
	if old == nil || old.ID == hb.MemberID || !old.Away() {
		return Decision{}, false
	}
	t := newTxn(g, now)
	c := static.Successor(old, hb, now)
	bindIdentity(c, hb)
	t.add(c)
	if len(old.Revoking) == 0 {
		t.remove(old.ID)
	} else {
		// The old process still drains: it keeps those shards (blocking them) as a LEAVING
		// member until it reports them released or its revocation times out.
		static.Depart(t.mutable(old.ID), now, g.restoredAt, g.cfg.LeaseTTL)
	}
	t.touch(c)
	t.recompute()
	settle(c, nil, t.meta.AssignmentEpoch, now, g.cfg.RebalanceTimeout, t.revokeBudget(c.ID))
	c.PrevEpoch = 0
	st, allowed, msg := t.metadataStatus(hb.MetadataVersion)
	grant(c, allowed && !g.holding(now), g.holder.Of)
	if msg == "" {
		msg = static.HandBackMessage(c, old.ID)
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
	static.Depart(t.mutable(id), t.now, t.g.restoredAt, t.g.cfg.LeaseTTL)
}
