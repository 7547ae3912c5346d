package groupstate

import (
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// join handles memberEpoch 0 (validated: nothing owned or revoking).
//
//   - unknown or EXPIRED member: a new STARTING member; groupEpoch++ and the target is recomputed.
//   - FENCED or LEAVING member: it owns nothing now, so its blocked shards are released and it
//     becomes a STARTING member again (groupEpoch++).
//   - STARTING/ACTIVE member: it lost its state; all its Assigned/Revoking are released, it
//     keeps its target and its state (an ACTIVE member stays confirmed: it takes nothing from
//     anyone by rejoining) and is reconciled at the current assignment epoch.
func (g *Group) join(hb *model.Heartbeat, now time.Time) Decision {
	m := g.members[hb.MemberID]
	if d, refused := instanceRefusal(g, hb, m); refused {
		return d
	}
	if d, ok := g.handBack(hb, now); ok {
		return d // a restart of a static member: a recovery, not growth (no join limits)
	}
	bucket, refused, ok := g.admit(hb, m, now)
	if !ok {
		return refused
	}
	t := newTxn(g, now)
	t.bucket = bucket
	var c *model.Member
	switch {
	case m == nil || m.State == model.StateExpired:
		c = &model.Member{ID: hb.MemberID, State: model.StateStarting, JoinedAt: now, StateSince: now}
		if m != nil {
			c.Name = m.Name
		}
		t.add(c)
		t.bumpGroupEpoch()
	case m.State == model.StateFenced || m.State == model.StateLeaving:
		c = t.mutable(m.ID)
		c.State, c.StateSince, c.JoinedAt = model.StateStarting, now, now
		c.Assigned, c.Revoking, c.Pending, c.Target = nil, nil, nil, nil
		c.RevokeDeadline = 0
		t.bumpGroupEpoch()
	default:
		c = t.mutable(m.ID)
		c.Assigned, c.Revoking = nil, nil
		c.RevokeDeadline = 0
		if m.Away() { // its next incarnation: the hold ends, the new process speaks for it
			c.Session, c.Incarnation = nil, ""
		}
	}
	c.InstanceID = hb.InstanceID
	if hb.MemberName != "" {
		c.Name = hb.MemberName
	}
	bindIdentity(c, hb)
	c.Capacity = hb.Capacity
	t.touch(c)
	t.recompute()
	settle(c, nil, t.meta.AssignmentEpoch, now, g.cfg.RebalanceTimeout, t.revokeBudget(c.ID))
	// A joining member has no previous epoch worth accepting: whatever ran under the old one
	// has lost its state (or is a zombie that must be fenced).
	c.PrevEpoch = 0
	st, allowed, msg := t.metadataStatus(hb.MetadataVersion)
	grant(c, allowed && !g.holding(now), g.holder.Of)
	if msg == "" && m != nil && m.State.InTarget() {
		msg = fmt.Sprintf("member %q rejoined while known: everything it held is released", m.ID)
	}
	resp := t.respond(st, c, msg)
	if g.holding(now) {
		heldResponse(g, &resp, c, nil)
	}
	return Decision{Response: resp, Change: t.change()}
}
