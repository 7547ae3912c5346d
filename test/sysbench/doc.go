// Package sysbench is the whole-system benchmark suite (make bench, make
// bench-quick): real processes on loopback — redis-server, the coordinator
// binary, the simulated members of ./simmembers in a process of their own and,
// for the heartbeat CPU figure, the bare fiber baseline of ./barefiber — and
// the figures of docs/BENCHMARKS.md's whole-system section, each with its
// baseline from the same run: coordinator CPU per steady heartbeat against
// the bare handler, hand-off and failover latency against the heartbeat
// interval and lease TTL, convergence of 100 members joining a group of
// 1,024 shards at once, and a 10-group stream scaled 64 → 128 shards and back
// (time to the new targets, to every shard owned, to the migration's end).
//
// TestSystemBenchmark runs only with RSC_BENCH_SYSTEM=1 (never in make
// test); RSC_BENCH_QUICK=1 shortens it to about a minute; RSC_BENCH_DOCS=path
// rewrites the generated section of that file. For development,
// RSC_BENCH_ONLY=load,reshard runs only the named scenarios (load, handoff,
// failover, converge, reshard; it cannot rewrite the docs), and
// RSC_BENCH_CPUPROFILE=path records a CPU profile of the coordinator during
// the load scenario with perf (`perf report -i path --no-children`).
package sysbench
