// Package reshard tests resharding (SPEC §7) against real processes: a
// real redis-server, coordinator processes (test/harness), member processes
// using the SDK (test/memberproc, recorded by test/recorder) and two kinds
// of producer running all the time — the SDK producer and a raw go-redis
// XADD NOMKSTREAM loop that refreshes its routing only when a write fails.
//
// What the tests hold the implementation to:
//
//   - every entry Redis acknowledged (XADD returned an id) is processed at
//     least once, across scale-out, scale-in (to 0 and back), rollback,
//     member kills and coordinator kill -9 in every migration state;
//   - one owner per shard at a time (the recorder's ack windows and fence
//     history, per shard incarnation), no invariant violation reported, no
//     epoch or metadataVersion going backwards;
//   - removed shards are retired at the end (the key renamed to its retired
//     key, kept with a TTL; its fences deleted), and a migration's history
//     lists its states in order;
//   - entries of a key whose shard does not change are processed in order;
//   - members that read without acknowledging and die leave no Redis
//     consumer names behind: the shard owners claim their entries and
//     delete their names (at most 3 per shard, nothing pending), around a
//     rolled-back and a completed scale-in;
//   - bad input is refused with the error body and changes nothing; a scale
//     that meets a Redis outage answers 503, activates nothing, and a retry
//     completes it.
//
// The coordinator's failpoint RSC_FAILPOINT_RESHARD_HOLD=<STATE> keeps a
// migration in one state on that process, so a kill -9 lands in that state
// deterministically.
package reshard
