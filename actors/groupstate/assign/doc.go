// Package assign holds the target assignors of the group rules (actors/groupstate): sticky,
// balanced within one, deterministic, over members sorted by id — uniform (Sorted) and
// capacity-weighted (Weighted, with Weights and Drifted).
//
// It is a package of its own because an assignor is a concept users know and choose (a
// group's assignment mode) and a new strategy is added here: it works on plain shard lists and
// weights, knows nothing of members, epochs or revocations, and is benchmarked on its own. It
// imports only the standard library and does no I/O; the rules decide who takes part and when
// to recompute (groupstate/txn.go, capacity.go).
package assign
