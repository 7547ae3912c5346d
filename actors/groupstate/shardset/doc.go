// Package shardset holds the sorted-set helpers over ascending shard ids ([]int) that the
// group rules (actors/groupstate) and its assignor compute with: difference, intersection,
// union, membership, validation, and the holder index of a group (Holders). It imports only the standard library and does no I/O.
package shardset
