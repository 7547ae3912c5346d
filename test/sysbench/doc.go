// Package sysbench is the whole-system benchmark suite (make bench, make
// bench-quick): real processes on loopback — redis-server, the coordinator
// binary, the simulated members of ./simmembers in a process of their own and,
// for the heartbeat CPU figure, the bare fiber baseline of ./barefiber — and
// the figures of docs/BENCHMARKS.md's whole-system section, each with its
// baseline from the same run: coordinator CPU per steady heartbeat against
// the bare handler, hand-off and failover latency against the heartbeat
// interval and lease TTL, and convergence of 100 members joining a group of
// 1,024 shards at once.
//
// TestSystemBenchmark runs only with RSC_BENCH_SYSTEM=1 (never in make
// test); RSC_BENCH_QUICK=1 shortens it to about a minute; RSC_BENCH_DOCS=path
// rewrites the generated section of that file.
package sysbench
