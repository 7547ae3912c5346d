package capacity

import (
	"github.com/redisstream/coordinator/actors/groupstate/assign"
	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Targets computes the next targets of the members taking part (cur, sorted by id) from their
// previous ones (prevOf), with the group's assignment mode.
func Targets(meta *model.Meta, cur []*model.Member, prevOf [][]int) [][]int {
	if meta.Assignment != model.AssignCapacity {
		return assign.Sorted(prevOf, meta.ShardCount)
	}
	return assign.Weighted(prevOf, Weights(cur), meta.ShardCount)
}

// Weights are the members' weights: their runtimeMaxConcurrency, the median for none
// (assign.Weights).
func Weights(cur []*model.Member) []int64 {
	reported := make([]int, len(cur))
	for i, m := range cur {
		reported[i] = m.Capacity.MaxConcurrency
	}
	return assign.Weights(reported)
}

// Drifted returns the ids of the members (those taking part, sorted by id) whose target is
// off their ideal share by the drift threshold (assign.Drifted) with the capacities they
// report now. Empty right after any capacity-weighted recompute.
func Drifted(cur []*model.Member, shardCount int) []string {
	w := Weights(cur)
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
