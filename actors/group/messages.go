package group

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// HeartbeatRequest asks the group actor to evaluate one heartbeat.
// Reply: *HeartbeatReply.
type HeartbeatRequest struct {
	PathMemberID string
	Request      protocol.HeartbeatRequest
	// Deadline is when the caller stops waiting. A request still queued
	// then is answered RETRY without being evaluated: its member has moved
	// on, and evaluating a stale ownership report after a newer one could
	// release a shard the member still drains. Zero: no deadline.
	Deadline time.Time
	// Reply, when set, receives the reply instead of the sender: a local
	// caller waits on it without a protoactor future (no registry entry, no
	// future timer per request). It must have room for one reply; exactly one
	// is sent if the actor evaluates the request (none if it never does). A
	// local caller also learns of a request the actor system could not
	// deliver (dead letter) through it: DeadLetterReply.
	Reply chan *HeartbeatReply
}

// DeadLetterReply is what a HeartbeatRequest's Reply receives when the
// request was not delivered (its actor had stopped); the caller may send it
// again to a fresh actor.
var DeadLetterReply = &HeartbeatReply{}

// HeartbeatReply carries the protocol response (always set, also for RETRY).
type HeartbeatReply struct {
	Response protocol.HeartbeatResponse
}

// DescribeRequest asks for the monitoring views of the group. Reply: *Description.
type DescribeRequest struct{}

// SampleRequest asks for what the metrics sampler needs, from the group's
// own state: cheaper than a DescribeRequest (no views are built). Sent by
// the hosting node to its own activations only. Reply: *SampleReply.
type SampleRequest struct{}

// SampleReply: the stream's shard count and how many shards are in no
// member's current assignment (as Description's CurrentAssignments counts
// them); Err when the activation cannot answer (stopped, not loaded).
type SampleReply struct {
	ShardCount, Unowned int
	Err                 error
}

// DebugRequest asks for the live actor state. Reply: *DebugState.
type DebugRequest struct{}

// DeleteRequest deletes the group's stored state and stops the actor when
// allowed. Reply: *DeleteReply.
type DeleteRequest struct {
	Force bool
	// RequestID is the admin request's id (X-Request-Id), for log lines.
	RequestID string
}

// DeleteReply answers a DeleteRequest.
type DeleteReply struct {
	Deleted     bool
	LiveMembers int
	Err         error
}

// PruneTick asks the group actor to drop members retained past their
// retention. Sent periodically by the host; no reply.
type PruneTick struct{}

// ResizeRequest tells the group that its stream's shard set or metadata
// changed (resharding). Reply: *ErrorReply.
type ResizeRequest struct {
	ShardCount      int
	MetadataVersion int64
	// RequestID names what asked (the migration id), for log lines.
	RequestID string
}

// ErrorReply is the reply of requests that return only an error.
type ErrorReply struct {
	Err error
}

// memberDue is sent by a member actor when its timer fired.
type memberDue struct {
	memberID string
}

// memberStarted is sent by a member actor on Started (also after a restart)
// to ask for its deadline; the group answers with arm.
type memberStarted struct {
	memberID string
	pid      *actor.PID
}

// arm sets a member actor's timer to fire at deadline.
type arm struct {
	deadline time.Time
}

// retryTimers is sent to self when a timer-driven write failed and must be
// tried again.
type retryTimers struct{}

// ReleaseRequest asks the group actor to stop answering and give its
// activation up (the node is shutting down): the next activation, on any
// node, then needs no takeover wait. Reply: *ErrorReply.
type ReleaseRequest struct{}

// TouchRequest activates the group if needed and answers once it is ready
// (or why it is not). The sweep sends it through the cluster so that groups
// nobody asks about still expire their dead members. Reply: *ErrorReply.
type TouchRequest struct{}
