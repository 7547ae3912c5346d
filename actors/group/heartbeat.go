package group

import (
	"errors"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// heartbeat runs one heartbeat through decode → evaluate → persist → apply
// and returns the response to send. It never returns a response whose
// content is not durable.
func (a *groupActor) heartbeat(ctx actor.Context, msg *HeartbeatRequest) protocol.HeartbeatResponse {
	start := a.deps.Now()
	resp := Respond(&msg.Request, a.evaluate(ctx, msg), a.deps.Rules)
	a.deps.Metrics.Heartbeat(string(resp.Status), a.deps.Now().Sub(start))
	return resp
}

func (a *groupActor) evaluate(ctx actor.Context, msg *HeartbeatRequest) groupstate.Response {
	req := msg.Request
	if err := a.ready(ctx); err != nil {
		if errors.Is(a.lastErr, ErrStreamMissing) {
			return unevaluated(&req, groupstate.CauseStreamMissing, a.key.StreamPrefix)
		}
		return unevaluated(&req, groupstate.CauseStoreUnreachable, "")
	}
	now := a.deps.Now()
	if !msg.Deadline.IsZero() && now.After(msg.Deadline) {
		return unevaluated(&req, groupstate.CauseQueueWait, "")
	}
	if !a.confirmed(now) {
		return unevaluated(&req, groupstate.CauseUnconfirmed, "")
	}
	hb := toCore(msg)
	dec := a.state.Heartbeat(hb, now)
	a.noteRefusal(req, dec.Response)
	if dec.Change == nil && dec.Response.Status == groupstate.StatusUnknownMemberID {
		// Only a rejected request can come from a member the group does not know (with
		// memberEpoch > 0 it always is rejected), and a rejection does not depend on the
		// hold: checked after the evaluation, so that an accepted heartbeat pays nothing.
		if hold, ok := a.state.UnknownClaims(&hb, (dataSetCheck{a}).youngDataSet(now), now); ok {
			a.state.HoldGrantsUntil(hold.Until)
			a.deps.Node.GroupStateLost(a.key, LossMemberClaims, hold.Reason, hold.Until)
		}
	}
	if dec.Response.Limit != "" {
		a.deps.Metrics.LimitRejected(dec.Response.Limit)
	}
	if dec.Change != nil {
		if dec.Response.Status == groupstate.StatusFencedMemberEpoch {
			a.fenceCause = dec.Response.Message // stored with the change (group/events)
		}
		if err := a.persist(ctx, dec.Change); err != nil {
			a.fenceCause = ""
			return unevaluated(&req, groupstate.CauseNotStored, "")
		}
		a.apply(ctx, dec.Change)
		a.fenceCause = ""
	}
	r := dec.Response
	if r.Status == groupstate.StatusOK || r.Status == groupstate.StatusSyncMetadata {
		// Only for members still known: a leave (also of a member never known) answers OK
		// too, and its rows would stay forever.
		if len(req.ShardProgress) > 0 && a.state.Known(req.MemberID) {
			a.progress[req.MemberID] = req.ShardProgress
		}
		if len(req.RevokingShards) > 0 || a.inFlight[req.MemberID] != nil {
			inFlightNotes{a}.noteInFlight(req.MemberID, req.RevokingShards)
		}
	}
	return r
}

// Respond is the wire answer to req from the rules' answer r: the timings the member
// is told come from rules (unless r sets the interval, groupstate.IntervalFor), the
// request id and an empty member id from the request.
func Respond(req *protocol.HeartbeatRequest, r groupstate.Response, rules groupstate.Config) protocol.HeartbeatResponse {
	resp := toWire(r)
	resp.ResponseTo = req.RequestID
	if resp.HeartbeatIntervalMs <= 0 {
		resp.HeartbeatIntervalMs = rules.HeartbeatInterval.Milliseconds()
	}
	resp.RebalanceTimeoutMs = rules.RebalanceTimeout.Milliseconds()
	resp.MemberLeaseTTLMs = rules.LeaseTTL.Milliseconds()
	if resp.MemberID == "" {
		resp.MemberID = req.MemberID
	}
	return resp
}

// Unevaluated is the wire answer to a heartbeat the shell could not have evaluated, for
// cause c (groupstate.Unevaluated).
func Unevaluated(req *protocol.HeartbeatRequest, c groupstate.Cause, detail string, rules groupstate.Config) protocol.HeartbeatResponse {
	return Respond(req, unevaluated(req, c, detail), rules)
}

func unevaluated(req *protocol.HeartbeatRequest, c groupstate.Cause, detail string) groupstate.Response {
	hb := groupstate.Heartbeat{MemberID: req.MemberID, MemberEpoch: req.MemberEpoch, MetadataVersion: req.MetadataVersion}
	return groupstate.Unevaluated(&hb, c, detail)
}

// RulesRequest is req as the rules read it (groupstate.Heartbeat).
func RulesRequest(pathMemberID string, req protocol.HeartbeatRequest) groupstate.Heartbeat {
	return toCore(&HeartbeatRequest{PathMemberID: pathMemberID, Request: req})
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
		InstanceID:  req.InstanceID,
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
