package assign

import "slices"

// Capacity-weighted assignment (the group setting assignment: capacity).
//
// Quotas: member i's ideal share is S·w[i]/W (W = Σw). Every member gets floor(share) shards,
// and the S − Σfloor left over (fewer than n) go one each to members whose share is not whole:
// first those that would otherwise give up a shard they keep (kept > floor), then the largest
// remainders (compared to 32 bits), ties by id. So every
// member's count is within one shard of its ideal share (floor or ceil), and an uneven split
// moves nothing it need not (the same rule as Sorted's, KAFKA-18688). Keeping, releasing and
// filling are Sorted's: sticky, deterministic, minimal in movement for the quotas.
//
// The drift threshold (Drifted) decides when a capacity change alone is worth a reassignment.

// DriftFraction is the relative part of the drift threshold: a member whose target is within
// max(1 shard, DriftFraction × its ideal share) of that share is not reassigned for a change
// of capacity.
const DriftFraction = 0.10

// Weighted is Sorted with quotas in proportion to weights (len(weights) == len(prevOf), each
// > 0: resolve reports with Weights). Cost: Sorted's plus O(n log n) to place the remainders.
func Weighted(prevOf [][]int, weights []int64, shardCount int) [][]int {
	n := len(prevOf)
	S := max(shardCount, 0)
	if n == 0 || S == 0 {
		return Sorted(prevOf, shardCount)
	}
	owner, kept, quota, have := keep(prevOf, S)
	if !weightedQuota(kept, quota, weights, S) {
		uniformQuota(kept, quota, S)
	}
	return layout(prevOf, owner, kept, quota, have, S)
}

// weightedQuota sets the quotas of the weighted split; false (nothing set) when the weights
// do not fit (wrong length, a weight ≤ 0).
func weightedQuota(kept, quota []int32, weights []int64, S int) bool {
	n := len(kept)
	if len(weights) != n || n >= 1<<30 {
		return false
	}
	var total int64
	for _, w := range weights {
		if w <= 0 {
			return false
		}
		total += w
	}
	// S < 2^23 and a weight < 2^31 (an int32 report): S·w < 2^54, no overflow.
	// keys orders the candidates for the leftover shards in one uint64 each (sorted without a
	// comparison function): the class in the top 2 bits (0: remainder and kept > floor, 1:
	// remainder, 2: whole share, never chosen), the remainder's fraction of total in 32 bits,
	// largest first, then the index.
	keys := make([]uint64, n)
	extra := S
	for i, w := range weights {
		num := int64(S) * w
		quota[i] = int32(num / total)
		extra -= int(quota[i])
		rem := num % total
		class, frac := uint64(2), uint64(0)
		if rem > 0 {
			class = 1
			if kept[i] > quota[i] {
				class = 0
			}
			frac = uint64(float64(rem) / float64(total) * (1 << 32))
		}
		keys[i] = class<<62 | ((1<<32)-1-min(frac, (1<<32)-1))<<30 | uint64(i)
	}
	if extra == 0 {
		return true
	}
	// A member whose share is whole never gets one more. It need not: Σrem = extra·total
	// with each rem < total, so more than extra members have a remainder.
	slices.Sort(keys)
	for _, k := range keys[:extra] {
		quota[k&(1<<30-1)]++
	}
	return true
}

// Weights resolves reported runtimeMaxConcurrency values into weights: a positive report is its
// own weight; a member reporting none (≤ 0) counts as the lower median of the positive reports
// (a typical member of the group), or 1 when nobody reports one (then the split is uniform).
func Weights(reported []int) []int64 {
	out := make([]int64, len(reported))
	pos := make([]int, 0, len(reported))
	for _, r := range reported {
		if r > 0 {
			pos = append(pos, r)
		}
	}
	def := int64(1)
	if len(pos) > 0 {
		slices.Sort(pos)
		def = int64(pos[(len(pos)-1)/2])
	}
	for i, r := range reported {
		out[i] = def
		if r > 0 {
			out[i] = int64(r)
		}
	}
	return out
}

// Drifted reports whether a member holding have target shards is off its ideal share
// S·w/total by at least max(1, DriftFraction × share): below that, a change of capacity moves
// nothing (the next reassignment for another reason takes it into account). Any Weighted
// result is within one shard of every share, so a reassignment never leaves a member drifted.
func Drifted(have int, w, total int64, shardCount int) bool {
	if total <= 0 || w <= 0 || shardCount <= 0 {
		return false
	}
	share := float64(shardCount) * float64(w) / float64(total)
	diff := float64(have) - share
	if diff < 0 {
		diff = -diff
	}
	return diff >= max(1, DriftFraction*share)
}
