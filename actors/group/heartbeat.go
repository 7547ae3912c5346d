package group

import (
	"errors"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate/answer"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// heartbeat runs one heartbeat through decode → evaluate → persist → apply
// and returns the response to send. It never returns a response whose
// content is not durable.
func (a *groupActor) heartbeat(ctx actor.Context, msg *groupmsg.HeartbeatRequest) protocol.HeartbeatResponse {
	start := a.deps.Now()
	resp := Respond(&msg.Request, a.evaluate(ctx, msg), a.deps.Rules)
	a.deps.Metrics.Heartbeat(string(resp.Status), a.deps.Now().Sub(start))
	return resp
}

func (a *groupActor) evaluate(ctx actor.Context, msg *groupmsg.HeartbeatRequest) model.Response {
	req := msg.Request
	if err := a.ready(ctx); err != nil {
		if errors.Is(a.lastErr, groupmsg.ErrStreamMissing) {
			return unevaluated(&req, answer.CauseStreamMissing, a.key.StreamPrefix)
		}
		if errors.Is(err, persistence.ErrFenced) {
			// Not activated here (held by the rejoin gate, placed elsewhere, or a
			// newer activation exists): the group is moving, the store is fine.
			return unevaluated(&req, answer.CauseNotAnswering, "")
		}
		return unevaluated(&req, answer.CauseStoreUnreachable, "")
	}
	now := a.deps.Now()
	if !msg.Deadline.IsZero() && now.After(msg.Deadline) {
		return unevaluated(&req, answer.CauseQueueWait, "")
	}
	if !a.confirmed(now) {
		return unevaluated(&req, answer.CauseUnconfirmed, "")
	}
	hb := toCore(msg)
	dec := a.state.Heartbeat(hb, now)
	if dec.Response.Status != model.StatusOK || dec.Response.IDInUse {
		// Every identity refusal is a non-OK answer: an accepted heartbeat builds no key string.
		a.refusals.note(a.deps.Logger, a.deps.Metrics, a.key.String(), req, dec.Response)
	}
	if dec.Change == nil && dec.Response.Status == model.StatusUnknownMemberID {
		// Only a rejected request can come from a member the group does not know (with
		// memberEpoch > 0 it always is rejected), and a rejection does not depend on the
		// hold: checked after the evaluation, so that an accepted heartbeat pays nothing.
		if hold, ok := a.state.UnknownClaims(&hb, a.youngDataSet(now), now); ok {
			a.state.HoldGrantsUntil(hold.Until)
			a.deps.Node.GroupStateLost(a.key, groupdeps.LossMemberClaims, hold.Reason, hold.Until)
		}
	}
	if dec.Response.Limit != "" {
		a.deps.Metrics.LimitRejected(dec.Response.Limit)
	}
	if dec.Change != nil {
		if dec.Response.Status == model.StatusFencedMemberEpoch {
			a.fenceCause = dec.Response.Message // stored with the change (events.go)
		}
		if err := a.persist(ctx, dec.Change); err != nil {
			a.fenceCause = ""
			return unevaluated(&req, answer.CauseNotStored, "")
		}
		applyNudging(a, ctx, dec.Change, req.MemberID)
		a.fenceCause = ""
	}
	r := dec.Response
	if r.Status == model.StatusOK || r.Status == model.StatusSyncMetadata {
		// Only for members still known: a leave (also of a member never known) answers OK
		// too, and its rows would stay forever.
		if len(req.ShardProgress) > 0 && a.state.Known(req.MemberID) {
			a.progress[req.MemberID] = req.ShardProgress
		}
		if len(req.RevokingShards) > 0 || a.inFlight[req.MemberID] != nil {
			a.noteInFlight(req.MemberID, req.RevokingShards)
		}
	}
	return r
}

// Respond is the wire answer to req from the rules' answer r: the timings the member
// is told come from rules (unless r sets the interval; groupstate/interval.go), the
// request id and an empty member id from the request.
func Respond(req *protocol.HeartbeatRequest, r model.Response, rules model.Config) protocol.HeartbeatResponse {
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
// cause c (answer.Unevaluated).
func Unevaluated(req *protocol.HeartbeatRequest, c answer.Cause, detail string, rules model.Config) protocol.HeartbeatResponse {
	return Respond(req, unevaluated(req, c, detail), rules)
}

func unevaluated(req *protocol.HeartbeatRequest, c answer.Cause, detail string) model.Response {
	hb := model.Heartbeat{MemberID: req.MemberID, MemberEpoch: req.MemberEpoch, MetadataVersion: req.MetadataVersion}
	return answer.Unevaluated(&hb, c, detail)
}

// RulesRequest is req as the rules read it (model.Heartbeat).
func RulesRequest(pathMemberID string, req protocol.HeartbeatRequest) model.Heartbeat {
	return toCore(&groupmsg.HeartbeatRequest{PathMemberID: pathMemberID, Request: req})
}

func toCore(msg *groupmsg.HeartbeatRequest) model.Heartbeat {
	req := msg.Request
	hb := model.Heartbeat{
		ProtocolVersion: req.ProtocolVersion,
		RequestID:       req.RequestID,
		PathMemberID:    msg.PathMemberID,
		MemberID:        req.MemberID,
		MemberName:      req.MemberName,
		MemberEpoch:     req.MemberEpoch,
		MetadataVersion: req.MetadataVersion,
		Capacity: model.Capacity{
			MaxConcurrency: req.RuntimeConsumerCapacity.RuntimeMaxConcurrency,
			Available:      req.RuntimeConsumerCapacity.AvailableConcurrency,
		},
		Owned:       protocol.Indexes(req.OwnedShards),
		Incarnation: req.IncarnationID,
		InstanceID:  req.InstanceID,
		Principal:   req.Principal,
		Transport:   req.Transport,
	}
	if len(req.RevokingShards) > 0 {
		hb.Revoking = make([]model.RevokingShard, len(req.RevokingShards))
		for i, r := range req.RevokingShards {
			hb.Revoking[i] = model.RevokingShard{Shard: r.Shard.ShardIndex, State: model.RevokeState(r.State), InFlight: r.InFlight}
		}
	}
	return hb
}

func toWire(r model.Response) protocol.HeartbeatResponse {
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
