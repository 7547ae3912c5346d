package membersdk

import "github.com/redisstream/coordinator/membersdk/internal/fence"

// Shard fence (docs/PROTOCOL.md, "Shard fence"). The coordinator keeps one
// Redis hash per (shard stream, consumer group), in the stream's Cluster
// slot, naming the member allowed to acknowledge and claim on the shard
// ("owner") and a token that increases on every ownership change. A worker
// reads it when it starts, keeps the token, and every XACK, XAUTOCLAIM and
// dead-letter move is checked against the fence by Redis before it writes —
// batch acknowledgements on the reader's connection by a WATCH transaction
// (FencedAcker), everything else by a script (internal/fence): a member
// frozen between its in-process ownership check and its write (GC pause,
// SIGSTOP, VM migration) is refused by Redis itself once the shard has moved
// on.
//
// A fence key that does not exist means the coordinator does not fence
// (older coordinator): the worker then runs unfenced, as before fences
// existed, and its scripts only check that the key is still absent.

// ErrFenced: the shard's fence in Redis names another owner or a newer token
// than the one this worker holds; the write was refused and nothing was
// written.
var ErrFenced = fence.ErrFenced
