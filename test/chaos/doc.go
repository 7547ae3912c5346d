// Package chaos runs the data plane (real redis-server, coordinator
// processes, member processes using the SDK, a producer) under a fault
// schedule generated from a seed — kill -9 and restart of members and of
// the coordinator, SIGSTOP past the lease, Redis outages, slow heartbeats —
// and checks that nothing is lost, no shard is processed by two members at
// once, epochs never go backwards and the coordinator never reports an
// invariant violation. TestChaos is the entry point; docs/RELIABILITY.md
// says how to run it and what the latest runs showed.
package chaos
