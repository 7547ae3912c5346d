// Package mailbox is a member's end of the Redis mailbox, the second
// heartbeat transport (docs/PROTOCOL.md, "Redis mailbox"): it XADDs request
// bodies to the principal's request stream and reads the member's reply list
// with one reader goroutine, which hands each reply to the request waiting for
// its requestId and turns nudges into a signal. It knows nothing of the
// heartbeat protocol beyond the mailbox framing: the caller encodes the body
// and decodes the answer.
//
// It may import the standard library, go-redis and membersdk/protocol only.
package mailbox
