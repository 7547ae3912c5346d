package group

import (
	"time"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/group/groupwire"
	"github.com/redisstream/coordinator/actors/wire"
)

// The group actor's messages live in group/groupmsg, their protobuf form in group/groupwire and
// what it needs from its node in group/groupdeps.
// These names keep the package's API for callers not yet moved to them (actors/host, while it
// becomes actors/router and actors/service); new code should use groupmsg and groupwire.

// Requests and replies (groupmsg).
type (
	HeartbeatRequest = groupmsg.HeartbeatRequest
	HeartbeatReply   = groupmsg.HeartbeatReply
	DescribeRequest  = groupmsg.DescribeRequest
	Description      = groupmsg.Description
	SampleRequest    = groupmsg.SampleRequest
	SampleReply      = groupmsg.SampleReply
	DebugRequest     = groupmsg.DebugRequest
	DebugState       = groupmsg.DebugState
	DebugMember      = groupmsg.DebugMember
	DeleteRequest    = groupmsg.DeleteRequest
	DeleteReply      = groupmsg.DeleteReply
	PruneTick        = groupmsg.PruneTick
	ResizeRequest    = groupmsg.ResizeRequest
	ErrorReply       = groupmsg.ErrorReply
	ReleaseRequest   = groupmsg.ReleaseRequest
	TouchRequest     = groupmsg.TouchRequest
)

// DeadLetterReply is groupmsg.DeadLetterReply.
var DeadLetterReply = groupmsg.DeadLetterReply

// Errors (groupmsg, groupwire).
var (
	ErrStreamMissing  = groupmsg.ErrStreamMissing
	ErrBadWireRequest = groupwire.ErrBadWireRequest
)

// RequestToWire is groupwire.RequestToWire.
func RequestToWire(msg any, now time.Time) (*wire.GroupRequest, error) {
	return groupwire.RequestToWire(msg, now)
}

// ReplyFromWire is groupwire.ReplyFromWire.
func ReplyFromWire(req any, r *wire.GroupReply) (any, error) { return groupwire.ReplyFromWire(req, r) }

// SetDeadline is groupwire.SetDeadline.
func SetDeadline(r *wire.GroupRequest, d, now time.Time) { groupwire.SetDeadline(r, d, now) }

// CodeOf is groupwire.CodeOf.
func CodeOf(err error) wire.Code { return groupwire.CodeOf(err) }

// ErrorFromCode is groupwire.ErrorFromCode.
func ErrorFromCode(code wire.Code, msg string) error { return groupwire.ErrorFromCode(code, msg) }

// What a group actor needs from its node (groupdeps).
type (
	Node            = groupdeps.Node
	NopNode         = groupdeps.NopNode
	NewDataSet      = groupdeps.NewDataSet
	Metrics         = groupdeps.Metrics
	IdentityMetrics = groupdeps.IdentityMetrics
)

// Kinds of store data loss a group reports (groupdeps).
const (
	LossMemberClaims  = groupdeps.LossMemberClaims
	LossActiveReaders = groupdeps.LossActiveReaders
	LossStoreBehind   = groupdeps.LossStoreBehind
)
