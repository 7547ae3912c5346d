// Package limits holds the pure parts of a group's limits (model.Config MaxMembers, JoinRate,
// JoinBurst, MaxRetained): the join token bucket and which retained members MaxRetained drops
// first. The group rules (actors/groupstate, limits.go) apply them inside an evaluation.
//
// It imports only the standard library and groupstate/model, and does no I/O.
package limits
