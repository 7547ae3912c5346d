// Package harness runs real coordinator processes for end-to-end tests: it
// builds cmd/coordinator once per test binary, starts it on a free loopback
// port against a given Redis, kills it with SIGKILL or stops it with SIGTERM,
// restarts it, and offers small HTTP helpers that speak the v1 protocol.
package harness
