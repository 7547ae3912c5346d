// Package shardset holds the sorted-set helpers over ascending shard ids ([]int) that the
// group rules (actors/groupstate) compute with: difference, intersection, union, membership,
// validation, and the holder index of a group (Holders).
//
// It is a package of its own because groupstate/answer validates the shard sets a heartbeat
// reports with it and cannot import the rules (they import answer). It imports only the
// standard library and does no I/O.
package shardset
