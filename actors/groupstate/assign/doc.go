// Package assign holds the target assignor of the group rules (actors/groupstate): sticky,
// balanced within one, deterministic, over members sorted by id. It imports only the standard
// library and does no I/O; the rules decide who takes part and when to recompute.
package assign
