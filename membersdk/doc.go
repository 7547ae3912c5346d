// Package membersdk is the Go member SDK of the Redis Stream Coordinator: a
// Consumer that joins a consumer group through the v1 heartbeat protocol and
// reads the Redis Stream shards the coordinator assigns to it, and a Producer
// that publishes to the shard a partition key routes to (SPEC §6, §9).
//
// # Consumer guarantees
//
//   - At-least-once. An entry is acknowledged (XACK) only after its handler
//     returned nil. An entry whose handler did not finish — because the member
//     crashed, was fenced, self-fenced, or outlived rebalanceTimeoutMs while
//     giving the shard up — stays pending in the Redis consumer group and is
//     claimed (XAUTOCLAIM) by the next owner of the shard before it reads new
//     entries. Handlers must therefore be idempotent.
//   - One reader per shard. A shard is read only while the coordinator has
//     assigned it (assignedShards; pendingShards are never read), by at most
//     one worker of the member. A shard taken away is released only after its
//     reader has stopped, so the coordinator never sees two readers of it.
//   - Ownership-checked acknowledgements. The successful entries of one read
//     are acknowledged with one XACK; it (and every dead-letter move) checks,
//     right before it is sent, that the shard is still owned by the worker
//     that read the entries and that the member is not self-fenced — for
//     every id in it.
//     After a shard is reported released no XACK from its old worker reaches
//     Redis.
//   - Fenced in Redis. With a fencing coordinator Redis itself refuses a
//     write of a member whose shard moved on while it was frozen between that
//     check and the write: batch acknowledgements are a WATCH/MULTI/EXEC
//     transaction on the shard fence (FencedAcker), claims and dead-letter
//     moves a script that checks it (NewFencedScriptAcker for
//     acknowledgements).
//   - A shard whose stream or consumer group is gone while owned is not read
//     and nothing is recreated; it is released when the coordinator revokes
//     it.
//   - Order per shard. With PerShardConcurrency 1 (the default) the entries
//     of one shard are handled one at a time, in stream order; a failing entry
//     is retried in place (with backoff) and holds up the shard until it
//     succeeds or is dead-lettered. Across shards, handlers run in parallel up
//     to Concurrency.
//   - Self-fencing. Without a heartbeat answer that proves the coordinator
//     still knows the member at its epoch (OK, SYNC_METADATA, REVOKE_PENDING)
//     for memberLeaseTtl − SelfFenceMargin, the member stops reading and
//     acking every shard at once — before the coordinator can reassign them.
//     It resumes when a heartbeat succeeds again, or rejoins if told it is
//     unknown or fenced.
//   - Dead letters. An entry whose handler failed MaxDeliveries times is
//     copied to the shard's dead-letter stream ShardDeadLetterKey(streamKey)
//     = "{orders:3}:dlq" (or ConsumerConfig.DeadLetterStream, when set) with
//     the fields rsc-origin-stream, rsc-origin-id, rsc-error,
//     rsc-consumer-group, rsc-member-id and rsc-delivery-count added, and
//     acknowledged, atomically (one fenced script).
//
// # Heartbeat transports
//
// Heartbeats go to the coordinator's HTTP API (ConsumerConfig.Transport
// "http", the default) or through the Redis mailbox ("redis"; docs/PROTOCOL.md,
// "Redis mailbox"), which needs no route to the coordinator and lets it nudge
// a member to heartbeat at once. The guarantees above hold for both.
//
// # Producer
//
// Publish routes the partition key with protocol.Route (MurmurHash3 x86 32
// with rejection sampling, bit-identical to the reference clients), caches
// the routing for RoutingTTL, refreshes it when Invalidate or
// ObserveMetadataVersion say so, and writes with XADD NOMKSTREAM: a missing
// shard stream (stale routing after a scale-in) triggers one routing refresh
// and one retry instead of silently creating a stream nobody reads.
//
// See docs/MEMBER-SDK.md for a guide and membersdk/example for a runnable
// program.
//
// # Module and imports
//
// The SDK is a module of its own (github.com/redisstream/coordinator/membersdk,
// go 1.24) so that an application gets none of the coordinator's
// dependencies. This package may import the standard library,
// membersdk/protocol, its internal packages (internal/coordclient: the
// coordinator HTTP client; internal/hbtransport: the heartbeat transports;
// internal/mailbox: the Redis mailbox; internal/fence: the shard fence, its
// scripts and fenced acknowledgements; internal/shardworker: the shard
// worker, with internal/shard and internal/retry; internal/routing: the
// producer's routing cache), go-redis and uuid; its tests
// membersdk/redistest and testify too.
// Nothing in this module may import the coordinator's module.
package membersdk
