package groupwire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/wire"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// errBadWireRequest means a forwarded request carried no operation this node
// knows (a node of a newer version sent it).
var errBadWireRequest = errors.New("group: forwarded request not understood")

// RequestToWire turns a request for a group actor into the protobuf message
// that can cross nodes, at now on the node's clock. Only the requests the host
// forwards are supported.
func RequestToWire(msg any, now time.Time) (*wire.GroupRequest, error) {
	switch m := msg.(type) {
	case *groupmsg.HeartbeatRequest:
		r := &wire.GroupRequest{Op: &wire.GroupRequest_Heartbeat{Heartbeat: heartbeatToWire(m)}}
		SetDeadline(r, m.Deadline, now)
		return r, nil
	case *groupmsg.DescribeRequest:
		return &wire.GroupRequest{Op: &wire.GroupRequest_Describe{Describe: &wire.Describe{}}}, nil
	case *groupmsg.DebugRequest:
		return &wire.GroupRequest{Op: &wire.GroupRequest_Debug{Debug: &wire.Debug{}}}, nil
	case *groupmsg.DeleteRequest:
		return &wire.GroupRequest{Op: &wire.GroupRequest_Delete{Delete: &wire.Delete{Force: m.Force}}, RequestId: m.RequestID}, nil
	case *groupmsg.ResizeRequest:
		return &wire.GroupRequest{Op: &wire.GroupRequest_Resize{Resize: &wire.Resize{
			ShardCount: int32(m.ShardCount), MetadataVersion: m.MetadataVersion}}, RequestId: m.RequestID}, nil
	case *groupmsg.ReleaseRequest:
		return &wire.GroupRequest{Op: &wire.GroupRequest_Release{Release: &wire.Release{}}}, nil
	case *groupmsg.TouchRequest:
		return &wire.GroupRequest{Op: &wire.GroupRequest_Touch{Touch: &wire.Touch{}}}, nil
	case *groupmsg.AssignmentRequest:
		return &wire.GroupRequest{Op: &wire.GroupRequest_SetAssignment{SetAssignment: &wire.SetAssignment{Assignment: m.Assignment}}, RequestId: m.RequestID}, nil
	case *groupmsg.RebalancingRequest:
		return &wire.GroupRequest{Op: &wire.GroupRequest_Rebalancing{Rebalancing: &wire.Rebalancing{
			Paused: m.Paused, RequestedBy: m.RequestedBy, Reason: m.Reason}}, RequestId: m.RequestID}, nil
	}
	return nil, fmt.Errorf("%w: %T cannot cross nodes", errBadWireRequest, msg)
}

// SetDeadline stamps a forwarded request with the caller's deadline d (zero:
// none), set on the node's clock, which reads now.
func SetDeadline(r *wire.GroupRequest, d, now time.Time) {
	if d.IsZero() {
		return
	}
	r.DeadlineUnixNano, r.TimeoutNanos = d.UnixNano(), max(int64(d.Sub(now)), 1)
}

// Deadline is a forwarded request's deadline on this node: the caller's,
// capped at received + the caller's timeout (zero: none).
func Deadline(r *wire.GroupRequest, received time.Time) time.Time {
	if r.GetDeadlineUnixNano() == 0 {
		return time.Time{}
	}
	d := time.Unix(0, r.GetDeadlineUnixNano())
	if r.GetTimeoutNanos() > 0 {
		if limit := received.Add(time.Duration(r.GetTimeoutNanos())); d.After(limit) {
			d = limit
		}
	}
	return d
}

// RequestFromWire is the inverse of RequestToWire, on the grain's side.
func RequestFromWire(r *wire.GroupRequest, received time.Time) (any, error) {
	switch op := r.Op.(type) {
	case *wire.GroupRequest_Heartbeat:
		m := heartbeatFromWire(op.Heartbeat)
		m.Deadline = Deadline(r, received)
		return m, nil
	case *wire.GroupRequest_Describe:
		return &groupmsg.DescribeRequest{}, nil
	case *wire.GroupRequest_Debug:
		return &groupmsg.DebugRequest{}, nil
	case *wire.GroupRequest_Delete:
		return &groupmsg.DeleteRequest{Force: op.Delete.GetForce(), RequestID: r.GetRequestId()}, nil
	case *wire.GroupRequest_Resize:
		return &groupmsg.ResizeRequest{ShardCount: int(op.Resize.GetShardCount()), MetadataVersion: op.Resize.GetMetadataVersion(), RequestID: r.GetRequestId()}, nil
	case *wire.GroupRequest_Release:
		return &groupmsg.ReleaseRequest{}, nil
	case *wire.GroupRequest_Touch:
		return &groupmsg.TouchRequest{}, nil
	case *wire.GroupRequest_SetAssignment:
		return &groupmsg.AssignmentRequest{Assignment: op.SetAssignment.GetAssignment(), RequestID: r.GetRequestId()}, nil
	case *wire.GroupRequest_Rebalancing:
		rb := op.Rebalancing
		return &groupmsg.RebalancingRequest{Paused: rb.GetPaused(), RequestedBy: rb.GetRequestedBy(), Reason: rb.GetReason(), RequestID: r.GetRequestId()}, nil
	}
	return nil, errBadWireRequest
}

// ReplyToWire turns a group actor's reply into its protobuf form.
func ReplyToWire(reply any) *wire.GroupReply {
	switch r := reply.(type) {
	case *groupmsg.HeartbeatReply:
		return &wire.GroupReply{Body: &wire.GroupReply_Heartbeat{Heartbeat: responseToWire(r.Response)}}
	case *groupmsg.Description:
		if r.Err != nil {
			return ErrorReply(r.Err)
		}
		plain := *r
		b, err := json.Marshal(&plain)
		if err != nil {
			return ErrorReply(err)
		}
		return &wire.GroupReply{Body: &wire.GroupReply_DescriptionJson{DescriptionJson: b}}
	case *groupmsg.DebugState:
		b, err := json.Marshal(r)
		if err != nil {
			return ErrorReply(err)
		}
		return &wire.GroupReply{Body: &wire.GroupReply_DebugJson{DebugJson: b}}
	case *groupmsg.DeleteReply:
		out := ErrorReply(r.Err)
		out.Body = &wire.GroupReply_Delete{Delete: &wire.DeleteResult{Deleted: r.Deleted, LiveMembers: int32(r.LiveMembers)}}
		return out
	case *groupmsg.ErrorReply:
		return ErrorReply(r.Err)
	}
	return &wire.GroupReply{Code: wire.Code_INTERNAL, Error: fmt.Sprintf("unexpected reply %T", reply)}
}

// ReplyFromWire turns a forwarded reply back into the Go reply the host
// expects for req (the Go request it forwarded).
func ReplyFromWire(req any, r *wire.GroupReply) (any, error) {
	err := errorFromCode(r.GetCode(), r.GetError())
	switch req.(type) {
	case *groupmsg.HeartbeatRequest:
		hb := r.GetHeartbeat()
		if hb == nil {
			return nil, fmt.Errorf("forwarded heartbeat got no response: %w", orInternal(err))
		}
		return &groupmsg.HeartbeatReply{Response: responseFromWire(hb)}, nil
	case *groupmsg.DescribeRequest, *groupmsg.RebalancingRequest:
		if err != nil {
			return &groupmsg.Description{Err: err}, nil
		}
		d := &groupmsg.Description{}
		if e := json.Unmarshal(r.GetDescriptionJson(), d); e != nil {
			return nil, fmt.Errorf("decode forwarded description: %w", e)
		}
		return d, nil
	case *groupmsg.DebugRequest:
		if err != nil {
			return nil, err
		}
		d := &groupmsg.DebugState{}
		if e := json.Unmarshal(r.GetDebugJson(), d); e != nil {
			return nil, fmt.Errorf("decode forwarded debug state: %w", e)
		}
		return d, nil
	case *groupmsg.DeleteRequest:
		d := r.GetDelete()
		return &groupmsg.DeleteReply{Deleted: d.GetDeleted(), LiveMembers: int(d.GetLiveMembers()), Err: err}, nil
	case *groupmsg.ResizeRequest, *groupmsg.ReleaseRequest, *groupmsg.TouchRequest, *groupmsg.AssignmentRequest:
		return &groupmsg.ErrorReply{Err: err}, nil
	}
	return nil, fmt.Errorf("%w: %T", errBadWireRequest, req)
}

func orInternal(err error) error {
	if err == nil {
		return errors.New("no body")
	}
	return err
}

// ErrorReply carries err as a code and its text.
func ErrorReply(err error) *wire.GroupReply {
	if err == nil {
		return &wire.GroupReply{}
	}
	return &wire.GroupReply{Code: codeOf(err), Error: err.Error()}
}

// codeOf classifies err for the trip to another node.
func codeOf(err error) wire.Code {
	switch {
	case err == nil:
		return wire.Code_OK
	case errors.Is(err, groupmsg.ErrStreamMissing):
		return wire.Code_STREAM_MISSING
	case errors.Is(err, persistence.ErrBehind): // wrapped with ErrFenced/ErrConflict/ErrNotFound: first
		return wire.Code_BEHIND
	case errors.Is(err, persistence.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return wire.Code_UNAVAILABLE
	case errors.Is(err, persistence.ErrFenced):
		return wire.Code_FENCED
	case errors.Is(err, persistence.ErrConflict):
		return wire.Code_CONFLICT
	case errors.Is(err, persistence.ErrNotFound):
		return wire.Code_NOT_FOUND
	case errors.Is(err, errBadWireRequest):
		return wire.Code_BAD_REQUEST
	}
	return wire.Code_INTERNAL
}

// remoteError is an error that came from another node: its text, and the
// sentinel of its code so that errors.Is works as on the node that raised it.
type remoteError struct {
	msg      string
	sentinel error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.sentinel }

// errorFromCode rebuilds an error from a code and its text (nil for OK).
func errorFromCode(code wire.Code, msg string) error {
	var s error
	switch code {
	case wire.Code_OK:
		return nil
	case wire.Code_UNAVAILABLE:
		s = persistence.ErrUnavailable
	case wire.Code_FENCED:
		s = persistence.ErrFenced
	case wire.Code_CONFLICT:
		s = persistence.ErrConflict
	case wire.Code_NOT_FOUND:
		s = persistence.ErrNotFound
	case wire.Code_STREAM_MISSING:
		s = groupmsg.ErrStreamMissing
	case wire.Code_BEHIND:
		s = persistence.ErrBehind
	case wire.Code_BAD_REQUEST:
		s = errBadWireRequest
	default:
		s = errors.New("internal error on the node hosting the group")
	}
	if msg == "" {
		msg = s.Error()
	}
	return &remoteError{msg: msg, sentinel: s}
}

func heartbeatToWire(m *groupmsg.HeartbeatRequest) *wire.Heartbeat {
	q := m.Request
	hb := &wire.Heartbeat{
		PathMemberId: m.PathMemberID, ProtocolVersion: int32(q.ProtocolVersion), RequestId: q.RequestID,
		MemberId: q.MemberID, MemberName: q.MemberName, MemberEpoch: q.MemberEpoch, MetadataVersion: q.MetadataVersion,
		RuntimeMaxConcurrency: int32(q.RuntimeConsumerCapacity.RuntimeMaxConcurrency),
		AvailableConcurrency:  int32(q.RuntimeConsumerCapacity.AvailableConcurrency),
		OwnedShards:           shardsToWire(q.OwnedShards),
		IncarnationId:         q.IncarnationID, Principal: q.Principal, InstanceId: q.InstanceID,
		Transport: q.Transport,
	}
	for _, r := range q.RevokingShards {
		hb.RevokingShards = append(hb.RevokingShards, &wire.RevokingShard{
			Shard: int32(r.Shard.ShardIndex), State: r.State, InFlight: int32(r.InFlight), AckedAt: r.AckedAt})
	}
	for _, p := range q.ShardProgress {
		hb.ShardProgress = append(hb.ShardProgress, &wire.ShardProgress{
			Shard: int32(p.Shard.ShardIndex), StreamKey: p.StreamKey, LastDeliveredId: p.LastDeliveredID,
			LastAckedId: p.LastAckedID, PendingCount: p.PendingCount, UpdatedAt: p.UpdatedAt})
	}
	return hb
}

func heartbeatFromWire(hb *wire.Heartbeat) *groupmsg.HeartbeatRequest {
	q := protocol.HeartbeatRequest{
		ProtocolVersion: int(hb.GetProtocolVersion()), RequestID: hb.GetRequestId(), MemberID: hb.GetMemberId(),
		MemberName: hb.GetMemberName(), MemberEpoch: hb.GetMemberEpoch(), MetadataVersion: hb.GetMetadataVersion(),
		RuntimeConsumerCapacity: protocol.Capacity{
			RuntimeMaxConcurrency: int(hb.GetRuntimeMaxConcurrency()), AvailableConcurrency: int(hb.GetAvailableConcurrency())},
		OwnedShards:   shardsFromWire(hb.GetOwnedShards()),
		IncarnationID: hb.GetIncarnationId(), Principal: hb.GetPrincipal(), InstanceID: hb.GetInstanceId(),
		Transport: hb.GetTransport(),
	}
	for _, r := range hb.GetRevokingShards() {
		q.RevokingShards = append(q.RevokingShards, protocol.RevokingShard{
			Shard: protocol.ShardID{ShardIndex: int(r.GetShard())}, State: r.GetState(), InFlight: int(r.GetInFlight()), AckedAt: r.AckedAt})
	}
	for _, p := range hb.GetShardProgress() {
		q.ShardProgress = append(q.ShardProgress, protocol.ShardProgress{
			Shard: protocol.ShardID{ShardIndex: int(p.GetShard())}, StreamKey: p.GetStreamKey(), LastDeliveredID: p.GetLastDeliveredId(),
			LastAckedID: p.GetLastAckedId(), PendingCount: p.GetPendingCount(), UpdatedAt: p.GetUpdatedAt()})
	}
	return &groupmsg.HeartbeatRequest{PathMemberID: hb.GetPathMemberId(), Request: q}
}

func responseToWire(r protocol.HeartbeatResponse) *wire.HeartbeatResponse {
	return &wire.HeartbeatResponse{
		ResponseTo: r.ResponseTo, Status: string(r.Status), MemberId: r.MemberID, MemberEpoch: r.MemberEpoch,
		HeartbeatIntervalMs: r.HeartbeatIntervalMs, RebalanceTimeoutMs: r.RebalanceTimeoutMs, MemberLeaseTtlMs: r.MemberLeaseTTLMs,
		GroupEpoch: r.GroupEpoch, AssignmentEpoch: r.AssignmentEpoch, MetadataVersion: r.MetadataVersion,
		AssignedShards: shardsToWire(r.Assignment.AssignedShards), PendingShards: shardsToWire(r.Assignment.PendingShards),
		AssignmentMetadataVersion: r.Assignment.MetadataVersion, Message: r.Message,
	}
}

func responseFromWire(r *wire.HeartbeatResponse) protocol.HeartbeatResponse {
	return protocol.HeartbeatResponse{
		ResponseTo: r.GetResponseTo(), Status: protocol.Status(r.GetStatus()), MemberID: r.GetMemberId(), MemberEpoch: r.GetMemberEpoch(),
		HeartbeatIntervalMs: r.GetHeartbeatIntervalMs(), RebalanceTimeoutMs: r.GetRebalanceTimeoutMs(), MemberLeaseTTLMs: r.GetMemberLeaseTtlMs(),
		GroupEpoch: r.GetGroupEpoch(), AssignmentEpoch: r.GetAssignmentEpoch(), MetadataVersion: r.GetMetadataVersion(),
		Assignment: protocol.Assignment{
			AssignedShards: shardsFromWire(r.GetAssignedShards()), PendingShards: shardsFromWire(r.GetPendingShards()),
			MetadataVersion: r.GetAssignmentMetadataVersion()},
		Message: r.GetMessage(),
	}
}

func shardsToWire(s []protocol.ShardID) []int32 {
	if len(s) == 0 {
		return nil
	}
	out := make([]int32, len(s))
	for i, id := range s {
		out[i] = int32(id.ShardIndex)
	}
	return out
}

// shardsFromWire never returns nil: the protocol sends [] rather than null.
func shardsFromWire(s []int32) []protocol.ShardID {
	out := make([]protocol.ShardID, len(s))
	for i, v := range s {
		out[i] = protocol.ShardID{ShardIndex: int(v)}
	}
	return out
}
