package group

import (
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// heartbeat runs one heartbeat through decode → evaluate → persist → apply
// and returns the response to send. It never returns a response whose
// content is not durable.
func (a *groupActor) heartbeat(ctx actor.Context, msg *HeartbeatRequest) protocol.HeartbeatResponse {
	start := a.deps.Now()
	req := msg.Request
	resp := a.evaluate(ctx, msg)
	resp.ResponseTo = req.RequestID
	if resp.HeartbeatIntervalMs <= 0 { // the rules' hint (groupstate.IntervalFor), else the configured interval
		resp.HeartbeatIntervalMs = a.deps.Rules.HeartbeatInterval.Milliseconds()
	}
	resp.RebalanceTimeoutMs = a.deps.Rules.RebalanceTimeout.Milliseconds()
	resp.MemberLeaseTTLMs = a.deps.Rules.LeaseTTL.Milliseconds()
	if resp.MemberID == "" {
		resp.MemberID = req.MemberID
	}
	if resp.Assignment.AssignedShards == nil {
		resp.Assignment.AssignedShards = []protocol.ShardID{}
	}
	if resp.Assignment.PendingShards == nil {
		resp.Assignment.PendingShards = []protocol.ShardID{}
	}
	a.deps.Metrics.Heartbeat(string(resp.Status), a.deps.Now().Sub(start))
	return resp
}

func (a *groupActor) evaluate(ctx actor.Context, msg *HeartbeatRequest) protocol.HeartbeatResponse {
	req := msg.Request
	if err := a.ready(ctx); err != nil {
		if errors.Is(a.lastErr, ErrStreamMissing) {
			return protocol.HeartbeatResponse{Status: protocol.StatusUnknownMemberID, MemberEpoch: req.MemberEpoch,
				Message: "stream " + a.key.StreamPrefix + " does not exist: create it, then rejoin with memberEpoch 0"}
		}
		return retry(req, "the coordinator cannot reach its store right now; keep current ownership and retry")
	}
	now := a.deps.Now()
	if !msg.Deadline.IsZero() && now.After(msg.Deadline) {
		return retry(req, "the request waited too long in the coordinator's queue and was not evaluated; retry")
	}
	if !a.confirmed(now) {
		return retry(req, "the coordinator cannot confirm with Redis that it still owns this group; keep current ownership and retry")
	}
	dec := a.state.Heartbeat(toCore(msg), now)
	a.noteRefusal(req, dec.Response)
	if dec.Change == nil && dec.Response.Status == groupstate.StatusUnknownMemberID {
		// Only a rejected request can come from a member the group does not know (with
		// memberEpoch > 0 it always is rejected), and a rejection does not depend on the
		// hold: checked after the evaluation, so that an accepted heartbeat pays nothing.
		// An identity refusal (MEMBER_ID_IN_USE, another principal) is never a sign of
		// store loss: it is answered only for a member the group knows.
		a.claimsUnknown(req, now)
	}
	if dec.Response.Limit != "" {
		a.deps.Metrics.LimitRejected(dec.Response.Limit)
	}
	if dec.Change != nil {
		if dec.Response.Status == groupstate.StatusFencedMemberEpoch {
			a.fenceCause = dec.Response.Message // stored with the change (events.go)
		}
		if err := a.persist(ctx, dec.Change); err != nil {
			a.fenceCause = ""
			return retry(req, "the coordinator could not store this decision; keep current ownership and retry")
		}
		a.apply(ctx, dec.Change)
		a.fenceCause = ""
	}
	r := dec.Response
	if r.Status == groupstate.StatusOK || r.Status == groupstate.StatusRevokePending || r.Status == groupstate.StatusSyncMetadata {
		// Only for members still known: a leave (also of a member never known) answers OK
		// too, and its rows would stay forever.
		if len(req.ShardProgress) > 0 && a.state.Known(req.MemberID) {
			a.progress[req.MemberID] = req.ShardProgress
		}
		if len(req.RevokingShards) > 0 || a.inFlight[req.MemberID] != nil {
			a.noteInFlight(req.MemberID, req.RevokingShards)
		}
	}
	return toWire(r)
}

// claimsUnknown holds the group's grants for a lease when a member reports an
// epoch and shards that this group, empty, has never heard of: the store
// lost them (FLUSHALL, a restart without persistence, a lagging replica),
// and that member may still read those shards until its lease runs out. The
// member itself is told UNKNOWN_MEMBER_ID by the rules and rejoins.
func (a *groupActor) claimsUnknown(req protocol.HeartbeatRequest, now time.Time) {
	if req.MemberEpoch <= 0 || len(req.OwnedShards)+len(req.RevokingShards) == 0 || a.state.Known(req.MemberID) {
		return
	}
	// In a young data set (newdataset.go) other members may have joined already while
	// this one, of the earlier data set, was still retrying: its claim counts anyway.
	if a.state.Occupied() > 0 && !a.youngDataSet(now) {
		return
	}
	until := now.Add(a.deps.Rules.LeaseTTL + a.deps.Rules.HeartbeatInterval)
	if !until.After(a.state.GrantsHeldUntil()) {
		return
	}
	a.state.HoldGrantsUntil(until)
	a.deps.GroupStateLost(a.key, LossMemberClaims, fmt.Sprintf("member %q reports memberEpoch %d and %d shard(s) the store does not know",
		req.MemberID, req.MemberEpoch, len(req.OwnedShards)+len(req.RevokingShards)), until)
}

// Reject decides, without any group state, whether every group would reject a heartbeat
// (UNSUPPORTED_PROTOCOL or INVALID_REQUEST), and why. The host asks before activating a group
// that is not running, so that such a request does not create and store the group it names.
func Reject(pathMemberID string, req protocol.HeartbeatRequest, rules groupstate.Config) (protocol.Status, string, bool) {
	r := groupstate.New(rules, "", "", 0, 0).Heartbeat(toCore(&HeartbeatRequest{PathMemberID: pathMemberID, Request: req}), time.Time{}).Response
	switch r.Status {
	case groupstate.StatusUnsupportedProtocol, groupstate.StatusInvalidRequest:
		return protocol.Status(r.Status), r.Message, true
	}
	return "", "", false
}

func retry(req protocol.HeartbeatRequest, why string) protocol.HeartbeatResponse {
	return protocol.HeartbeatResponse{Status: protocol.StatusRetry, MemberID: req.MemberID,
		MemberEpoch: req.MemberEpoch, MetadataVersion: req.MetadataVersion, Message: why}
}

func toCore(msg *HeartbeatRequest) groupstate.Heartbeat {
	req := msg.Request
	hb := groupstate.Heartbeat{
		ProtocolVersion: req.ProtocolVersion,
		RequestID:       req.RequestID,
		PathMemberID:    msg.PathMemberID,
		MemberID:        req.MemberID,
		MemberName:      req.MemberName,
		MemberEpoch:     req.MemberEpoch,
		MetadataVersion: req.MetadataVersion,
		Capacity: groupstate.Capacity{
			MaxConcurrency: req.RuntimeConsumerCapacity.RuntimeMaxConcurrency,
			Available:      req.RuntimeConsumerCapacity.AvailableConcurrency,
		},
		Owned:       protocol.Indexes(req.OwnedShards),
		Incarnation: req.IncarnationID,
		Principal:   req.Principal,
	}
	if len(req.RevokingShards) > 0 {
		hb.Revoking = make([]groupstate.RevokingShard, len(req.RevokingShards))
		for i, r := range req.RevokingShards {
			hb.Revoking[i] = groupstate.RevokingShard{Shard: r.Shard.ShardIndex, State: groupstate.RevokeState(r.State), InFlight: r.InFlight}
		}
	}
	return hb
}

func toWire(r groupstate.Response) protocol.HeartbeatResponse {
	return protocol.HeartbeatResponse{
		Status:          protocol.Status(r.Status),
		MemberID:        r.MemberID,
		MemberEpoch:     r.MemberEpoch,
		GroupEpoch:      r.GroupEpoch,
		AssignmentEpoch: r.AssignmentEpoch,
		MetadataVersion: r.MetadataVersion,
		Assignment: protocol.Assignment{
			AssignedShards:  protocol.ShardIDs(r.Assigned),
			PendingShards:   protocol.ShardIDs(r.Pending),
			MetadataVersion: r.MetadataVersion,
		},
		Message:             r.Message,
		HeartbeatIntervalMs: r.HeartbeatInterval.Milliseconds(),
	}
}
