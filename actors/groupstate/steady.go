package groupstate

import (
	"slices"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// The steady heartbeat. Nearly every heartbeat of a settled group comes from an ACTIVE member
// whose assignment is complete (Assigned = Target, nothing pending or revoking) at the current
// epochs: all it can change is the member's lease and its reported capacity, neither of which
// is durable. The general path (accepted) still builds a txn, copies the member record twice
// and searches every set operation; steadyDecision answers the same thing directly, in
// O(shards of the member) and without allocating: its Change is the group's own (Group.steady,
// reused by the next steady heartbeat), and Apply then updates the record in place (no
// re-indexing: nothing the holder index or the counters depend on moved). Every steady
// heartbeat of a node used to leave a 448-byte Change behind, about half of all it allocated
// per heartbeat (docs/BENCHMARKS.md, "Memory per member").
//
// steady lists exactly the conditions under which accepted would change nothing durable and
// answer OK without a message; the tests check that both paths agree wherever steady holds
// (checkSteadyAgrees, run by the fuzz target and the simulations).

// steady reports whether member m's accepted heartbeat hb (at m's current epoch) is a steady
// one: accepted would only renew the lease and record the capacity.
func (g *Group) steady(hb *model.Heartbeat, m *model.Member, now time.Time) bool {
	meta := &g.meta
	return m.State == model.StateActive && hb.MemberEpoch == m.Epoch &&
		// No recompute pending, no epoch to advance to (settle), no version ahead (metadataStatus).
		meta.GroupEpoch <= meta.AssignmentEpoch && m.Epoch >= meta.AssignmentEpoch &&
		hb.MetadataVersion <= meta.MetadataVersion &&
		// settle and grant have nothing to move.
		len(m.Revoking) == 0 && m.RevokeDeadline.IsZero() && len(m.Pending) == 0 &&
		slices.Equal(m.Assigned, m.Target) &&
		(hb.MemberName == "" || hb.MemberName == m.Name) && !identityBound(m, hb) && !transportMoved(m, hb) &&
		steadyCapacity(meta, m, hb) && // a capacity change that may move shards (capacity.go)
		!g.holding(now) &&
		// change() would trim retained members otherwise (a lowered limit, a restore).
		(g.cfg.MaxRetained <= 0 || g.retained <= g.cfg.MaxRetained)
}

// steadyChange holds a steady heartbeat's Change and its one member version.
type steadyChange struct {
	change Change
	member [1]model.Member
}

// steadyDecision is accepted's Decision for a steady heartbeat (steady holds): OK, the member's
// assignment as it is, and a volatile Change renewing its lease. The Change is g's own
// (g.steadyChange), valid until g evaluates the next steady heartbeat: apply it before that,
// as the group actor always does (evaluate, then persist and apply, one message at a time).
func (g *Group) steadyDecision(hb *model.Heartbeat, m *model.Member, now time.Time) Decision {
	if g.steadyChange == nil {
		g.steadyChange = &steadyChange{}
	}
	sc := g.steadyChange
	*sc = steadyChange{}
	c := &sc.member[0]
	*c = *m
	c.Capacity = hb.Capacity
	c.LastHeartbeat, c.LeaseDeadline = model.InstantOf(now), model.InstantOf(now.Add(g.cfg.LeaseTTL))
	c.Revoking, c.Pending = nil, nil // what settle and grant leave (both empty already)
	if len(c.Target) == 0 {
		c.Pending = c.Target
	}
	sc.change.Members = sc.member[:]
	return Decision{
		Response: model.Response{
			Status: model.StatusOK, MemberID: c.ID, MemberEpoch: c.Epoch,
			GroupEpoch: g.meta.GroupEpoch, AssignmentEpoch: g.meta.AssignmentEpoch,
			MetadataVersion: g.meta.MetadataVersion,
			Assigned:        shardset.RespSlice(c.Assigned), Pending: shardset.RespSlice(c.Pending),
			HeartbeatInterval: intervalFor(g.cfg, model.StatusOK, c, othersOverdue(g, c.ID)),
		},
		Change: &sc.change,
	}
}
