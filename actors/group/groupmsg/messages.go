package groupmsg

import (
	"errors"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
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
	// ReplyTo, when set with Reply, is where the actor writes the reply it sends on Reply: a
	// local caller reuses it (with the request itself) for its next heartbeat, so that a
	// heartbeat allocates no reply (docs/BENCHMARKS.md, "Memory per member").
	ReplyTo *HeartbeatReply
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
	// Revoking counts shards a live member was told to release and has
	// not released yet; Waiting, shards a live member still holds outside
	// its target without being told to release them yet: moves held back
	// by the move cap (assignment.max-moves-per-round) or by a paused
	// rebalancing.
	Revoking, Waiting int
	// PausedSince is when an operator paused the group's rebalancing (zero:
	// rebalancing is active).
	PausedSince time.Time
	Err         error
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

// AssignmentRequest sets the group's assignment mode (an operator's request: the admin API,
// streamctl, the console). Reply: *ErrorReply.
type AssignmentRequest struct {
	Assignment string // "uniform" or "capacity"
	RequestID  string // the HTTP request id, for log lines
}

// RebalancingRequest pauses (Paused) or resumes the group's rebalancing
// (groupstate/pause.go) for the operator RequestedBy names. Reply:
// *Description, the group as it is after the request (Err when it failed).
type RebalancingRequest struct {
	Paused              bool
	RequestedBy, Reason string
	// RequestID is the admin request's id (X-Request-Id), for log lines.
	RequestID string
}

// ErrorReply is the reply of requests that return only an error.
type ErrorReply struct {
	Err error
}

// ReleaseRequest asks the group actor to stop answering and give its
// activation up (the node is shutting down): the next activation, on any
// node, then needs no takeover wait. Reply: *ErrorReply.
type ReleaseRequest struct{}

// TouchRequest activates the group if needed and answers once it is ready
// (or why it is not). The sweep sends it through the cluster so that groups
// nobody asks about still expire their dead members. Reply: *ErrorReply.
type TouchRequest struct{}

// Description is every monitoring view of one group, computed in the actor
// from its own state (member actors are never asked: see
// notes on receive-timeouts in docs/ARCHITECTURE.md).
type Description struct {
	Group       protocol.GroupResponse
	Members     protocol.MembersResponse
	Assignments protocol.AssignmentsResponse
	Consumption protocol.ConsumptionResponse
	Err         error
}

// DebugState is the live actor state of one group on this node.
type DebugState struct {
	Group           string         `json:"group"`
	NodeID          string         `json:"nodeId"`
	Actor           string         `json:"actor"`
	Active          bool           `json:"active"`
	ActivationEpoch int64          `json:"activationEpoch"`
	StoreRevision   int64          `json:"storeRevision"`
	ActivatedAt     string         `json:"activatedAt,omitempty"`
	ConfirmedAt     string         `json:"confirmedAt,omitempty"`
	LastError       string         `json:"lastError,omitempty"`
	Meta            *model.Meta    `json:"meta,omitempty"`
	Members         []DebugMember  `json:"members"`
	Holders         map[int]string `json:"holders"`
}

// DebugMember is one member as its group actor sees it.
type DebugMember struct {
	ID             string `json:"memberId"`
	Actor          string `json:"actor,omitempty"`
	State          string `json:"state"`
	Epoch          int64  `json:"memberEpoch"`
	PrevEpoch      int64  `json:"previousEpoch"`
	LeaseDeadline  string `json:"leaseDeadline,omitempty"`
	LeaseLeftMs    int64  `json:"leaseLeftMs"`
	RevokeDeadline string `json:"revokeDeadline,omitempty"`
	Target         []int  `json:"target"`
	Assigned       []int  `json:"assigned"`
	Pending        []int  `json:"pending"`
	Revoking       []int  `json:"revoking"`
}

// ErrStreamMissing means the group's stream is not (or no longer) stored.
var ErrStreamMissing = errors.New("group: stream does not exist")
