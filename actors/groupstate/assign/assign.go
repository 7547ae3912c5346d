package assign

import "slices"

// Assign is the pure sticky, balanced, deterministic target assignor.
//
// With n members (sorted by id, duplicates ignored) and S shards, every member gets base=S/n
// or base+1 shards; the extra=S%n members receiving base+1 are those keeping the most of
// their previous shards (ties by id), so an uneven split causes no needless moves
// (KAFKA-18688). Each member keeps up to its quota of its previous shards (valid ones < S,
// first claimant by id wins a shard listed twice, kept in the order given, ascending in
// practice); the rest join the pool with the unowned shards, which fills members below quota
// in ascending shard order. Every returned slice is sorted and non-nil; it is a capped
// sub-slice of one shared array, so callers must not append to it in place.
//
// Cost: O(S + n + Σ|prev|) with slices indexed by shard (no maps in the hot loop).
func Assign(prev map[string][]int, members []string, shardCount int) map[string][]int {
	ids := members
	if !strictlySorted(ids) {
		ids = slices.Clone(ids)
		slices.Sort(ids)
		ids = slices.Compact(ids)
	}
	prevOf := make([][]int, len(ids))
	for i, id := range ids {
		prevOf[i] = prev[id]
	}
	res := Sorted(prevOf, shardCount)
	out := make(map[string][]int, len(ids))
	for i, id := range ids {
		out[id] = res[i]
	}
	return out
}

// Sorted is Assign over members already sorted by id and unique: prevOf[i] is member
// i's previous target; result[i] its new one.
func Sorted(prevOf [][]int, shardCount int) [][]int {
	n := len(prevOf)
	S := max(shardCount, 0)
	if n == 0 || S == 0 {
		out := make([][]int, n)
		for i := range out {
			out[i] = []int{}
		}
		return out
	}

	owner, kept, quota, have := keep(prevOf, S)
	uniformQuota(kept, quota, S)
	return layout(prevOf, owner, kept, quota, have, S)
}

// uniformQuota sets every quota to S/n or S/n+1 (see Assign).
func uniformQuota(kept, quota []int32, S int) {
	n := len(kept)
	base, extra := int32(S/n), S%n
	for i := range quota {
		quota[i] = base
	}
	if extra > 0 {
		// Pick the `extra` members with the most kept shards (capped at base+1), ties by id:
		// all members above threshold T, plus the first `rem` members exactly at T.
		top := base + 1
		cnt := make([]int, top+1)
		for _, k := range kept {
			cnt[min(k, top)]++
		}
		rem, T := extra, top
		for cnt[T] < rem {
			rem -= cnt[T]
			T--
		}
		for i, k := range kept {
			c := min(k, top)
			if c > T || (c == T && rem > 0) {
				quota[i]++
				if c == T {
					rem--
				}
			}
		}
	}

}

// keep marks in owner (len S, all -1) every valid previous shard of each member, first
// claimant by index, and counts them in kept.
func keep(prevOf [][]int, S int) (owner, kept, quota, have []int32) {
	n := len(prevOf)
	owner = make([]int32, S)
	for i := range owner {
		owner[i] = -1
	}
	ints := make([]int32, 3*n)
	kept, quota, have = ints[:n], ints[n:2*n], ints[2*n:]
	for i, p := range prevOf {
		for _, s := range p {
			if s >= 0 && s < S && owner[s] < 0 {
				owner[s] = int32(i)
				kept[i]++
			}
		}
	}
	return owner, kept, quota, have
}

// layout releases the shards beyond each member's quota, fills members below quota from the
// pool in ascending shard order, and lays the result out (Σquota must be S).
func layout(prevOf [][]int, owner, kept, quota, have []int32, S int) [][]int {
	n := len(prevOf)
	out := make([][]int, n)
	// Release shards beyond each member's quota back to the pool.
	for i, p := range prevOf {
		if kept[i] <= quota[i] {
			have[i] = kept[i]
			continue
		}
		// Keep the first quota[i] shards in the order given; mark kept ones with n+i while
		// walking so that a shard listed twice is not counted twice, then unmark.
		var k int32
		mark := int32(n + i)
		for _, s := range p {
			if s >= 0 && s < S && owner[s] == int32(i) {
				if k < quota[i] {
					k++
					owner[s] = mark
				} else {
					owner[s] = -1
				}
			}
		}
		for _, s := range p {
			if s >= 0 && s < S && owner[s] == mark {
				owner[s] = int32(i)
			}
		}
		have[i] = k
	}

	// Fill members below quota from the pool, in ascending shard order.
	j := 0
	for s := range owner {
		if owner[s] >= 0 {
			continue
		}
		for have[j] >= quota[j] {
			j++
		}
		owner[s] = int32(j)
		have[j]++
	}

	// Lay every member's shards out, sorted, in one backing array.
	backing := make([]int, S)
	off := 0
	for i := range have { // have[i] == quota[i] now; reuse it as the write cursor
		have[i] = int32(off)
		off += int(quota[i])
	}
	for s, o := range owner {
		backing[have[o]] = s
		have[o]++
	}
	off = 0
	for i := range out {
		q := int(quota[i])
		out[i] = backing[off : off+q : off+q]
		off += q
	}
	return out
}

func strictlySorted(ids []string) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			return false
		}
	}
	return true
}
