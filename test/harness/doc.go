// Package harness runs real coordinator processes for end-to-end tests: it
// builds cmd/coordinator once per test binary (once per `make test` run,
// shared by its test binaries, under COORDINATOR_TEST_BINDIR), starts it on
// a free loopback port against a given Redis, kills it with SIGKILL or stops it with SIGTERM,
// restarts it, pauses and continues it (SIGSTOP/SIGCONT), and offers small
// HTTP helpers that speak the v1 protocol. StartCluster runs several
// coordinators as one automanaged actor host cluster on loopback, and
// FailoverMember is a simulated member that fails over between their URLs
// and reports every exchange (for a "told" oracle, see test/cluster).
// Transport carries a Member's heartbeats over HTTP (*Client) or the Redis
// mailbox (Mailbox, written from docs/PROTOCOL.md alone).
package harness
