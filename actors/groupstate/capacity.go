package groupstate

import (
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/assign"
	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Capacity-weighted assignment (Meta.Assignment = model.AssignCapacity): the target gives the
// members taking part shards in proportion to their reported runtimeMaxConcurrency
// (capacityTargets, assign.Weighted; a member reporting none counts as the group's median).
//
// When it is recomputed: whenever the uniform target would be (a join confirmed, a leave, an
// expiry, a fence, a resize), when the mode changes (SetAssignment), and when a member's
// report changes enough to matter: capacityMoves. A change that leaves every member taking part
// within max(1 shard, 10 %) of its ideal share (driftedMembers) moves nothing and costs no
// write; the next recompute for any reason takes it into account.

// capacityMoves reports whether member c (the txn's version, its new capacity recorded)
// changing its runtimeMaxConcurrency from before must reassign the group: only with
// AssignCapacity, only for a member taking part (ACTIVE), and only when some member taking part
// is now drifted from its ideal share (assign.Drifted; the reporter's share moves most, but a
// member reporting none follows the median). O(members).
func capacityMoves(t *txn, c *model.Member, before int) bool {
	if t.meta.Assignment != model.AssignCapacity || c.State != model.StateActive ||
		c.Capacity.MaxConcurrency == before || t.meta.GroupEpoch > t.meta.AssignmentEpoch {
		return false
	}
	var cur []*model.Member
	for _, id := range t.liveIDs() {
		if m := t.get(id); m.State == model.StateActive {
			cur = append(cur, m)
		}
	}
	return len(driftedMembers(cur, t.meta.ShardCount)) > 0
}

// steadyCapacity reports whether a heartbeat reporting hb's capacity leaves member m on the
// steady path (steady.go): always, but with AssignCapacity a changed runtimeMaxConcurrency takes
// the general path, which decides with capacityMoves.
func steadyCapacity(meta *model.Meta, m *model.Member, hb *model.Heartbeat) bool {
	return meta.Assignment != model.AssignCapacity || hb.Capacity.MaxConcurrency == m.Capacity.MaxConcurrency
}

// SetAssignment evaluates an operator's change of the group's assignment mode at now. The
// Change (persist, then Apply, as for a heartbeat's) stores the mode with the group's meta
// and, when members take part, recomputes the target with it (groupEpoch+1): members then
// move toward it as after any rebalance (revoke before assign, the move cap). Nil when the
// group already uses mode. An unknown mode is an error naming the field and the choices.
func SetAssignment(g *Group, mode model.AssignmentMode, now time.Time) (*Change, error) {
	if !mode.Valid() {
		return nil, fmt.Errorf("assignment %q is not a mode; send \"uniform\" (every member the same share) or \"capacity\" (shares in proportion to runtimeMaxConcurrency)", mode)
	}
	if mode == model.AssignUniform {
		mode = "" // stored as before the setting existed
	}
	if g.meta.Assignment == mode {
		return nil, nil
	}
	t := newTxn(g, now)
	t.recompute() // a pending recompute first, with the old mode
	t.meta.Assignment, t.metaDirty = mode, true
	if len(t.liveIDs()) > 0 {
		t.bumpGroupEpoch()
		t.recompute()
	}
	return t.change(), nil
}

// capacityTargets computes the next targets of the members taking part (cur, sorted by id) from their
// previous ones (prevOf), with the group's assignment mode.
func capacityTargets(meta *model.Meta, cur []*model.Member, prevOf [][]int) [][]int {
	if meta.Assignment != model.AssignCapacity {
		return assign.Sorted(prevOf, meta.ShardCount)
	}
	return assign.Weighted(prevOf, capacityWeights(cur), meta.ShardCount)
}

// capacityWeights are the members' weights: their runtimeMaxConcurrency, the median for none
// (assign.Weights).
func capacityWeights(cur []*model.Member) []int64 {
	reported := make([]int, len(cur))
	for i, m := range cur {
		reported[i] = m.Capacity.MaxConcurrency
	}
	return assign.Weights(reported)
}

// driftedMembers returns the ids of the members (those taking part, sorted by id) whose target is
// off their ideal share by the drift threshold (assign.Drifted) with the capacities they
// report now. Empty right after any capacity-weighted recompute.
func driftedMembers(cur []*model.Member, shardCount int) []string {
	w := capacityWeights(cur)
	var total int64
	for _, x := range w {
		total += x
	}
	var out []string
	for i, m := range cur {
		if assign.Drifted(len(m.Target), w[i], total, shardCount) {
			out = append(out, m.ID)
		}
	}
	return out
}
