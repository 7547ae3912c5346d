// Package compat replays the request and response shapes of the reference
// Redis Stream Coordinator's clients (its Python package, its Kotlin Spring
// Boot starter, its dashboards) against a real coordinator process and a
// real redis-server, from the reference's documented protocol: field names
// are checked on raw JSON, not through our Go types, so a renamed field
// fails here even if our own clients still agree with the server.
//
// It may import test/harness, membersdk/protocol, membersdk/redistest, go-redis, testify and the standard library.
package compat
