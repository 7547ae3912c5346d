// Package e2e holds end-to-end tests: a real coordinator process, a real
// redis-server, real HTTP. Simulated members (test/harness.Member) follow
// the v1 protocol step by step so every rule can be observed from outside.
package e2e
