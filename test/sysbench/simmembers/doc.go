// Command simmembers is the member side of the whole-system benchmark
// (test/sysbench): simulated protocol-v1 members in a process of their own,
// so that they do not share the coordinator's process. Each scenario prints
// one JSON object (its result) on stdout.
//
//	load      steady heartbeats from -members members in -groups groups over
//	          -conns keep-alive connections, in interleaved rounds against the
//	          coordinator and a bare fiber baseline (-baseline); the CPU each
//	          process spent per heartbeat is read from /proc/<pid>/stat.
//	handoff   shards moving between live members (a third member joins and
//	          leaves again, -cycles times): release → new owner's response.
//	failover  a member stops heartbeating (crash), -cycles times: its last
//	          heartbeat → every shard it held owned by another member.
//	converge  -members members join one group of -shards shards at once:
//	          seconds and heartbeat rounds until every shard is owned and the
//	          group is STABLE.
//	reshard   -groups groups of -members members each settle on the stream's
//	          -shards shards; the stream is scaled to -to shards and, once that
//	          migration is DEPRECATED, back to -shards: per scale, the time
//	          from the request to every group's target covering the new shard
//	          set, to every shard owned (and none beyond it), and to the
//	          migration's DEPRECATED. The members never read the shards, which
//	          therefore stay empty (a scale-in retires them at once).
//
// Members in handoff, failover and converge behave like the SDK: they
// heartbeat after the heartbeatIntervalMs of their last response, release a
// revoked shard at once and then heartbeat at once.
//
// It may import membersdk/protocol, fasthttp and the standard library — nothing of the coordinator or the SDK.
package main
