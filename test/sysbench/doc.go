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
// Then the node's memory per member (100,000 members in 1,000 groups, on the
// runtime's defaults and with GOMEMLIMIT=320MiB, against the same process
// before they joined) and its Redis commands with 1,000 idle active groups
// against none (single node and a 2-node in-process cluster): actors/host's
// benchmarks, built as a test binary and run in processes of their own, each
// writing its figures as JSON lines to the file RSC_BENCH_RESULT names
// (hostbench_test.go).
//
// TestSystemBenchmark runs only with RSC_BENCH_SYSTEM=1 (never in make
// test); RSC_BENCH_QUICK=1 shortens it to under two minutes (20,000
// members, 3 s idle windows); RSC_BENCH_DOCS=path rewrites the generated
// section of that file. For development,
// RSC_BENCH_ONLY=load,reshard runs only the named scenarios (load, handoff,
// failover, converge, reshard, host; it cannot rewrite the docs), and
// RSC_BENCH_CPUPROFILE=path records a CPU profile of the coordinator during
// the load scenario with perf (`perf report -i path --no-children`).
package sysbench
