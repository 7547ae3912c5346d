// Package fence is the member's side of the shard fence (docs/PROTOCOL.md,
// "Shard fence"): reading the fence a worker holds (Read, Hold), the Lua
// scripts that check it in Redis before an XACK, XAUTOCLAIM or dead-letter
// move (Script, AckScript, ClaimScript, DeadLetterScript, Check for more
// scripts), and the acknowledgement through it, as a WATCH/MULTI/EXEC
// transaction on a connection of its own or through the script (Acker).
// The root package's FencedAcker is a thin wrapper of Acker. A handler's
// transaction (Writes) commits its Redis writes with the XACK of its
// entries through the fence in one script (CommitScript, Commit); SlotKey
// names keys in a shard's Redis Cluster slot (protocol.RedisSlot).
//
// It may import the standard library, go-redis and membersdk/protocol only.
package fence
