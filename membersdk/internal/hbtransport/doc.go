// Package hbtransport carries a member's heartbeats to the coordinator and
// the answers back: over the coordinator's HTTP API (HTTP, with failover
// through coordclient) or through the Redis mailbox (Mailbox). Both give
// the same errors for the same outcomes, built by the caller's
// coordclient.StatusError.
//
// It may import the standard library, membersdk/protocol,
// membersdk/internal/coordclient and membersdk/internal/mailbox only.
package hbtransport
