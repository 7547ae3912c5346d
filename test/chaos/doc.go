// Package chaos runs the data plane (real redis-server, coordinator
// processes, member processes using the SDK, a producer) under a fault
// schedule generated from a seed — kill -9 and restart of members and of
// coordinators, SIGSTOP of members past the lease, Redis outages, slow
// heartbeats, and with a cluster of coordinators (RSC_CHAOS_COORDINATORS,
// 3 in `make chaos`) also node pauses (an evicted node exits and a
// supervisor in the test restarts it) and graceful node restarts — and
// checks that nothing is lost, no shard is processed by two members at
// once, epochs never go backwards and the coordinator never reports an
// invariant violation. TestChaos is the entry point (TestChaosCluster its
// short 3-node run); docs/RELIABILITY.md says how to run it and what the
// latest runs showed.
package chaos
