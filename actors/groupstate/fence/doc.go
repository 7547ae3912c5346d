// Package fence holds the shard-fence moves of a change (docs/PROTOCOL.md "Shard fence"):
// which shards' holders a durable change moves, for the shell to write before it persists the
// change. The group rules (actors/groupstate) call it when they build a Change.
//
// It imports only the standard library, groupstate/model and groupstate/shardset, and does
// no I/O.
package fence
