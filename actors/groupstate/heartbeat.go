package groupstate

import (
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/answer"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// Heartbeat evaluates one v1 heartbeat at time now. It never mutates the group: the caller
// persists Decision.Change (when Durable), then calls Apply, then sends Decision.Response.
// A steady heartbeat's Change is the group's own, valid until the next evaluation (doc.go).
// Rejected requests (UNSUPPORTED_PROTOCOL, INVALID_REQUEST, UNKNOWN_MEMBER_ID, heartbeats of
// an already fenced member) come with a nil Change.
func (g *Group) Heartbeat(hb model.Heartbeat, now time.Time) Decision {
	st, msg, r := answer.Precheck(&hb)
	if st != "" {
		return reject(g, &hb, st, 0, msg)
	}
	if d, refused := identityRefusal(g, &hb, g.members[hb.MemberID]); refused {
		return d
	}
	switch hb.MemberEpoch {
	case 0:
		return g.join(&hb, now)
	case -1:
		return g.leave(&hb, r, now)
	case -2:
		return g.temporaryLeave(&hb, r, now)
	}
	return g.heartbeatAt(&hb, r, now)
}

// reject answers without any state change.
func reject(g *Group, hb *model.Heartbeat, st model.Status, epoch int64, msg string) Decision {
	r := answer.Empty(hb, st, epoch, g.meta.MetadataVersion, msg)
	r.GroupEpoch, r.AssignmentEpoch = g.meta.GroupEpoch, g.meta.AssignmentEpoch
	r.HeartbeatInterval = g.cfg.HeartbeatInterval
	return Decision{Response: r}
}

// fenceDecision fences member id in a fresh txn and answers FENCED_MEMBER_EPOCH. held is what
// the rejected heartbeat reported reading: a free shard among them (within the shard count) is
// blocked with the rest of the member's holdings, since the member says it may be reading it
// (a reordered request, a client bug, or a store that lost writes). Shards another member
// holds cannot be helped here.
func fenceDecision(g *Group, id string, now time.Time, why string, held []int) Decision {
	t := newTxn(g, now)
	t.fence(id)
	c := t.get(id)
	var claimed []int
	for _, s := range held {
		if s >= t.meta.ShardCount {
			break // held is sorted
		}
		if g.holder.Of(s) == "" {
			claimed = append(claimed, s)
		}
	}
	if len(claimed) > 0 {
		c.Revoking = shardset.Union(c.Revoking, claimed)
	}
	t.recompute()
	resp := t.respond(model.StatusFencedMemberEpoch, c, why+"; stop reading every shard at once and rejoin with memberEpoch 0")
	resp.Assigned, resp.Pending = []int{}, []int{}
	return Decision{Response: resp, Change: t.change()}
}

// heartbeatAt handles memberEpoch > 0.
func (g *Group) heartbeatAt(hb *model.Heartbeat, r answer.Report, now time.Time) Decision {
	m := g.members[hb.MemberID]
	switch {
	case m == nil || m.State == model.StateExpired:
		return reject(g, hb, model.StatusUnknownMemberID, 0,
			fmt.Sprintf("member %q is not known to group %q (never joined, or its lease expired); drop all shards and rejoin with memberEpoch 0", hb.MemberID, g.meta.ConsumerGroup))
	case m.State == model.StateFenced:
		return reject(g, hb, model.StatusFencedMemberEpoch, m.Epoch,
			fmt.Sprintf("member %q is fenced; stop reading every shard at once and rejoin with memberEpoch 0", hb.MemberID))
	case m.State == model.StateLeaving:
		return fenceDecision(g, m.ID, now, fmt.Sprintf("member %q is leaving but sent memberEpoch %d", m.ID, hb.MemberEpoch), r.Held)
	case m.Away():
		return reject(g, hb, model.StatusUnknownMemberID, 0, awayMessage(m))
	case hb.InstanceID != "" && hb.InstanceID != m.InstanceID:
		return reject(g, hb, model.StatusInvalidRequest, 0, fmt.Sprintf("invalid heartbeat: instanceId %q differs from %q, the one member %q joined with; an instanceId is taken only by a join (memberEpoch 0)",
			hb.InstanceID, m.InstanceID, hb.MemberID))
	}
	atPrev := false
	switch {
	case hb.MemberEpoch == m.Epoch:
	case hb.MemberEpoch == m.PrevEpoch && m.PrevEpoch > 0 && len(shardset.Diff(r.Owned, m.Assigned)) == 0:
		// The response that raised the epoch was lost: accept as current.
		atPrev = true
	default:
		return fenceDecision(g, m.ID, now, fmt.Sprintf("memberEpoch %d is stale or ahead (current %d)", hb.MemberEpoch, m.Epoch), r.Held)
	}
	if s, bad := shardset.FirstMissing(r.Held, m.Assigned, m.Revoking); bad {
		return fenceDecision(g, m.ID, now, fmt.Sprintf("member %q claims shard %d it was not given", m.ID, s), r.Held)
	}
	if !atPrev && g.steady(hb, m, now) {
		return g.steadyDecision(hb, m, now)
	}
	return g.accepted(hb, r, m, atPrev, now)
}

// accepted evaluates an accepted heartbeat of member m (memberEpoch current, or the previous
// one when atPrev) in a txn: the general path, which steadyDecision short-cuts when nothing
// but the lease and capacity can change (steady.go).
func (g *Group) accepted(hb *model.Heartbeat, r answer.Report, m *model.Member, atPrev bool, now time.Time) Decision {
	t := newTxn(g, now)
	t.recompute() // no-op unless a restored state left one pending
	c := t.mutable(m.ID)
	t.touch(c)
	c.Capacity = hb.Capacity
	if hb.MemberName != "" {
		c.Name = hb.MemberName
	}
	bindIdentity(c, hb)
	if capacityMoves(t, c, m.Capacity.MaxConcurrency) {
		t.bumpGroupEpoch() // its share moved past the drift threshold (capacity.go)
		t.recompute()
	}
	if c.State == model.StateStarting {
		// Confirmed: it received its join response and is alive. It now takes part in the
		// assignment (recompute), which changes the target unless it is the only live member.
		c.State, c.StateSince = model.StateActive, now
		if g.live > 1 {
			t.bumpGroupEpoch()
			t.recompute()
		}
	}
	settle(c, r.Held, t.meta.AssignmentEpoch, now, g.cfg.RebalanceTimeout, t.revokeBudget(c.ID))
	if atPrev {
		// The member still knows only hb.MemberEpoch: if this response is lost too, its
		// retry at that epoch must still be accepted, not fenced for an epoch it never saw.
		c.PrevEpoch = m.PrevEpoch
	}
	st, allowed, msg := t.metadataStatus(hb.MetadataVersion)
	grant(c, allowed && !g.holding(now), g.holder.Of)
	resp := t.respond(st, c, msg)
	if g.holding(now) {
		heldResponse(g, &resp, c, r.Held)
	}
	return Decision{Response: resp, Change: t.change()}
}

// metadataStatus applies the metadata rule for a member reporting metadataVersion reported: a
// version above the group's is answered SYNC_METADATA and never adopted. It returns the status,
// whether new shards may be granted, and the message.
func (t *txn) metadataStatus(reported int64) (model.Status, bool, string) {
	if reported > t.meta.MetadataVersion {
		// Only the coordinator issues versions: a member's report is never adopted (a buggy or
		// hostile client would otherwise move the group's and the routing's version, and the
		// store would keep it). The member adopts ours, as SYNC_METADATA says.
		return model.StatusSyncMetadata, false, fmt.Sprintf(
			"member reported metadataVersion %d, but this group's metadata is at version %d and only the coordinator issues versions; adopt %d, keep only assignedShards, start nothing new",
			reported, t.meta.MetadataVersion, t.meta.MetadataVersion)
	}
	return model.StatusOK, true, ""
}
