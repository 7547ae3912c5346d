package host

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/api"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard"
)

// Heartbeat routes a heartbeat to the group actor. An unknown stream is a
// protocol outcome (UNKNOWN_MEMBER_ID), not an HTTP error, and spawns no
// actor; a store or actor failure is RETRY so that members keep what they own.
// A group that does not exist is created only by a join, only when
// groups.creation is implicit and limits.groups-per-stream allows it
// (heartbeatUnknownGroup); otherwise nothing is spawned or stored.
func (h *Host) Heartbeat(ctx context.Context, streamPrefix, groupName, pathMemberID string, req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, error) {
	if why := h.refusingRequests(); why != "" {
		return h.outcome(req, protocol.StatusRetry, "this coordinator node refuses to serve ("+why+"; see its health); keep current ownership and retry, through another node"), nil
	}
	key := persistence.GroupKey{StreamPrefix: streamPrefix, ConsumerGroup: groupName}
	pid, active := h.active(key)
	if !active && !h.knownStored(key) {
		// A request every group rejects must not create (activate and store) the group.
		if status, msg, rejected := group.Reject(pathMemberID, req, h.opts.Rules); rejected {
			return h.outcome(req, status, msg), nil
		}
		if _, err := h.stream(ctx, streamPrefix); err != nil {
			if errors.Is(err, api.ErrStreamNotFound) {
				return h.outcome(req, protocol.StatusUnknownMemberID,
					"stream "+streamPrefix+" does not exist: create it, then rejoin with memberEpoch 0"), nil
			}
			return h.outcome(req, protocol.StatusRetry, "the coordinator cannot reach its store right now; keep current ownership and retry"), nil
		}
		stored, err := h.groupStored(ctx, key)
		if err != nil {
			return h.outcome(req, protocol.StatusRetry, "the coordinator cannot reach its store right now; keep current ownership and retry"), nil
		}
		if !stored {
			if resp, done := h.heartbeatUnknownGroup(ctx, key, req); done {
				return resp, nil
			}
		}
		h.markKnown(key) // the next heartbeats through this node are forwarded without store reads
	}
	// Wait at most one heartbeat interval (members time out later than that);
	// the group actor drops the request unevaluated once nobody waits for it.
	wait := h.opts.Rules.HeartbeatInterval
	if wait < 500*time.Millisecond {
		wait = 500 * time.Millisecond
	}
	if wait > h.opts.RequestTimeout {
		wait = h.opts.RequestTimeout
	}
	// The deadline travels in the message and bounds the wait: no context timer of its own.
	now := time.Now()
	deadline := now.Add(wait)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	msg := &group.HeartbeatRequest{PathMemberID: pathMemberID, Request: req, Deadline: deadline}
	var res any
	var err error
	if timeout := min(deadline.Sub(now), h.opts.RequestTimeout); h.clustered() || timeout <= 0 {
		res, err = h.askWithin(timeout, key, msg)
	} else {
		// Refusal was checked above, and the actor found then is asked first.
		res, err = h.askHeartbeat(key, pid, msg, timeout)
	}
	if err != nil {
		return h.outcome(req, protocol.StatusRetry, "the group is not answering right now (restarting or moving); keep current ownership and retry"), nil
	}
	resp := res.(*group.HeartbeatReply).Response
	if err := group.Refusal(resp); err != nil {
		return protocol.HeartbeatResponse{}, fmt.Errorf("%w: %w", api.ErrMemberOwnedByAnotherPrincipal, err)
	}
	return resp, nil
}

// outcome builds a response the host decides without the group actor.
func (h *Host) outcome(req protocol.HeartbeatRequest, status protocol.Status, msg string) protocol.HeartbeatResponse {
	r := h.opts.Rules
	return protocol.HeartbeatResponse{
		ResponseTo: req.RequestID, Status: status, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch,
		HeartbeatIntervalMs: r.HeartbeatInterval.Milliseconds(), RebalanceTimeoutMs: r.RebalanceTimeout.Milliseconds(),
		MemberLeaseTTLMs: r.LeaseTTL.Milliseconds(), MetadataVersion: req.MetadataVersion,
		Assignment: protocol.Assignment{AssignedShards: []protocol.ShardID{}, PendingShards: []protocol.ShardID{}, MetadataVersion: req.MetadataVersion},
		Message:    msg,
	}
}

// describe asks the group actor for its views. With create false, or when
// groups.creation is explicit, an unknown group is ErrGroupNotFound and no
// actor is spawned for it; with create true it is created (createGroup).
func (h *Host) describe(ctx context.Context, streamPrefix, groupName string, create bool) (*group.Description, error) {
	if err := h.refusal(); err != nil {
		return nil, err
	}
	key := persistence.GroupKey{StreamPrefix: streamPrefix, ConsumerGroup: groupName}
	if _, ok := h.active(key); !ok {
		stream, err := h.stream(ctx, streamPrefix)
		if err != nil {
			return nil, err
		}
		snap, err := h.opts.Store.LoadGroup(ctx, key)
		switch {
		case errors.Is(err, persistence.ErrNotFound):
			if !create {
				return nil, fmt.Errorf("group %s: %w", key, api.ErrGroupNotFound)
			}
			if h.opts.Limits.ExplicitGroupCreation {
				return nil, fmt.Errorf("group %s does not exist and groups.creation is explicit: create it with POST /coord/v1/streams/{streamPrefix}/groups/{consumerGroup}: %w", key, api.ErrGroupNotFound)
			}
			d, err := h.createGroup(ctx, key)
			if err == nil {
				return d, nil
			}
			if !errors.Is(err, api.ErrGroupExists) { // created meanwhile: describe it below
				return nil, err
			}
		case err != nil:
			return nil, mapStoreErr(err)
		default:
			if d, ok := group.DescribeStored(h.opts.Rules, key, stream, snap, h.opts.Now()); ok {
				return d, nil // idle: answered from the store, not activated (group/passivate.go)
			}
		}
	}
	res, err := h.ask(ctx, key, &group.DescribeRequest{})
	if err != nil {
		return nil, err
	}
	d := res.(*group.Description)
	if d.Err != nil {
		return nil, h.groupErr(key, d.Err)
	}
	return d, nil
}

// groupErr maps an error a group actor reported.
func (h *Host) groupErr(key persistence.GroupKey, err error) error {
	if errors.Is(err, persistence.ErrNotFound) {
		return fmt.Errorf("group %s: %w", key, api.ErrGroupNotFound)
	}
	if errors.Is(err, group.ErrStreamMissing) {
		return fmt.Errorf("stream %s: %w", key.StreamPrefix, api.ErrStreamNotFound)
	}
	return mapStoreErr(err)
}

// Group returns an existing group. A GET changes nothing: an unknown group
// is ErrGroupNotFound (the reference answers 404 GROUP_NOT_FOUND), never
// created; joins, producer routing and CreateGroup create groups.
func (h *Host) Group(ctx context.Context, streamPrefix, groupName string) (protocol.GroupResponse, error) {
	d, err := h.describe(ctx, streamPrefix, groupName, false)
	if err != nil {
		return protocol.GroupResponse{}, err
	}
	return h.withMigration(ctx, d.Group, nil), nil
}

// MonitorGroup returns an existing group.
func (h *Host) MonitorGroup(ctx context.Context, streamPrefix, groupName string) (protocol.GroupResponse, error) {
	d, err := h.describe(ctx, streamPrefix, groupName, false)
	if err != nil {
		return protocol.GroupResponse{}, err
	}
	return h.withMigration(ctx, d.Group, nil), nil
}

// Members lists an existing group's members.
func (h *Host) Members(ctx context.Context, streamPrefix, groupName string) (protocol.MembersResponse, error) {
	d, err := h.describe(ctx, streamPrefix, groupName, false)
	if err != nil {
		return protocol.MembersResponse{}, err
	}
	return d.Members, nil
}

// Assignments shows target against current assignment of an existing group.
func (h *Host) Assignments(ctx context.Context, streamPrefix, groupName string) (protocol.AssignmentsResponse, error) {
	d, err := h.describe(ctx, streamPrefix, groupName, false)
	if err != nil {
		return protocol.AssignmentsResponse{}, err
	}
	return d.Assignments, nil
}

// Consumption shows the members' progress rows of an existing group.
func (h *Host) Consumption(ctx context.Context, streamPrefix, groupName string) (protocol.ConsumptionResponse, error) {
	d, err := h.describe(ctx, streamPrefix, groupName, false)
	if err != nil {
		return protocol.ConsumptionResponse{}, err
	}
	return d.Consumption, nil
}

// Groups lists every stored group with its state.
func (h *Host) Groups(ctx context.Context) (protocol.GroupsResponse, error) {
	if err := h.refusal(); err != nil {
		return protocol.GroupsResponse{}, err
	}
	keys, err := h.opts.Store.ListGroups(ctx, "")
	if err != nil {
		return protocol.GroupsResponse{}, mapStoreErr(err)
	}
	out := protocol.GroupsResponse{Groups: make([]protocol.GroupResponse, 0, len(keys))}
	layouts := map[string]*reshard.Layout{}
	for _, k := range keys {
		d, err := h.describe(ctx, k.StreamPrefix, k.ConsumerGroup, false)
		if errors.Is(err, api.ErrGroupNotFound) || errors.Is(err, api.ErrStreamNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return protocol.GroupsResponse{}, err
		}
		out.Groups = append(out.Groups, h.withMigration(ctx, d.Group, layouts))
	}
	return out, nil
}

// DeleteGroup deletes a group's stored state (the Redis consumer groups on
// the shards are kept: they hold the data plane's positions).
func (h *Host) DeleteGroup(ctx context.Context, streamPrefix, groupName string, req protocol.DeleteGroupRequest) (protocol.DeleteGroupResponse, error) {
	key := persistence.GroupKey{StreamPrefix: streamPrefix, ConsumerGroup: groupName}
	if _, err := h.describe(ctx, streamPrefix, groupName, false); err != nil {
		return protocol.DeleteGroupResponse{}, err
	}
	res, err := h.ask(ctx, key, &group.DeleteRequest{Force: req.Force, RequestID: api.RequestIDFrom(ctx)})
	if err != nil {
		return protocol.DeleteGroupResponse{}, err
	}
	r := res.(*group.DeleteReply)
	out := protocol.DeleteGroupResponse{StreamPrefix: streamPrefix, ConsumerGroup: groupName, Deleted: r.Deleted, LiveMembers: r.LiveMembers}
	switch {
	case r.Err != nil:
		return out, h.groupErr(key, r.Err)
	case !r.Deleted:
		return out, fmt.Errorf("group %s has %d live member(s); stop them or pass force=true: %w", key, r.LiveMembers, api.ErrGroupHasMembers)
	}
	h.forgetFull(streamPrefix)
	h.forgetKnown(key)
	h.opts.Logger.Info("group deleted", "group", key.String(), "requestId", api.RequestIDFrom(ctx), "requestedBy", req.RequestedBy, "reason", req.Reason, "force", req.Force)
	return out, nil
}

// ProducerRouting returns the routing table, creating the group (and its
// Redis consumer group on every shard) on first use.
func (h *Host) ProducerRouting(ctx context.Context, streamPrefix, groupName string) (protocol.ProducerRouting, error) {
	if _, err := h.describe(ctx, streamPrefix, groupName, true); err != nil {
		return protocol.ProducerRouting{}, err
	}
	// Producers route with the stream's routing count, which is smaller than
	// the group's shard set while a scale-in's removed shards drain.
	rec, err := h.stream(ctx, streamPrefix)
	if err != nil {
		return protocol.ProducerRouting{}, err
	}
	return protocol.Routing(streamPrefix, groupName, rec.ShardCount, rec.MetadataVersion), nil
}
