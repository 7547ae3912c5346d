// Command demo shows the coordinator doing its job, end to end, on this
// machine only: a Redis (redis-server when on PATH, else an embedded one), a
// coordinator process, a stream of 8 shards, 3 member processes using the
// member SDK and a producer. It prints shard ownership as it changes, kills
// one member with SIGKILL (its shards move after its lease), adds another,
// and checks that every produced message was processed. Exit status 0 only if
// nothing was lost. With --transport redis the members heartbeat through the
// Redis mailbox instead of the coordinator's HTTP API (the producer still
// routes over HTTP).
//
// Its binaries and logs live in a temporary directory, removed at the end
// unless -keep is given (or the demo failed: then the logs stay, and it says
// where). Ctrl-C stops it at once and cleans up; if it is killed any other
// way, its redis-server, coordinator and members die with it.
//
// It may import the member SDK, membersdk/protocol, go-redis, miniredis (the embedded Redis), test/recorder, test/seqprod and the standard library; it runs the coordinator as a process, never in-process.
package main
