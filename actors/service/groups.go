package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate/answer"
	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/coordinator"
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
func (h Membership) Heartbeat(ctx context.Context, streamPrefix, groupName, pathMemberID string, req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, error) {
	if why := h.node.RefusingRequests(); why != "" {
		return h.unevaluated(&req, answer.CauseRefusing, why), nil
	}
	key := persistence.GroupKey{StreamPrefix: streamPrefix, ConsumerGroup: groupName}
	if _, active := h.router.Active(key); !active && !h.router.KnownStored(key) {
		// A request every group rejects must not create (activate and store) the group.
		hb := group.RulesRequest(pathMemberID, req)
		if r, rejected := answer.Reject(&hb); rejected {
			return group.Respond(&req, r, h.opts.Rules), nil
		}
		if _, err := h.stream(ctx, streamPrefix); err != nil {
			if errors.Is(err, coordinator.ErrStreamNotFound) {
				return h.unevaluated(&req, answer.CauseStreamMissing, streamPrefix), nil
			}
			return h.unevaluated(&req, answer.CauseStoreUnreachable, ""), nil
		}
		stored, err := h.groupStored(ctx, key)
		if err != nil {
			return h.unevaluated(&req, answer.CauseStoreUnreachable, ""), nil
		}
		if !stored {
			if resp, done := h.heartbeatUnknownGroup(ctx, key, &hb, req); done {
				return resp, nil
			}
		}
		h.router.MarkKnown(key) // the next heartbeats through this node are forwarded without store reads
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
	// It is set on the node's clock, which the group actor checks it with; the context's
	// deadline is on the wall clock: what is left of it counts.
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl))
	}
	now := h.opts.Now()
	deadline := now.Add(wait)
	// Refusal was checked above.
	rep, err := h.router.Heartbeat(ctx, key, groupmsg.HeartbeatRequest{PathMemberID: pathMemberID, Request: req, Deadline: deadline})
	if err != nil {
		return h.unevaluated(&req, answer.CauseNotAnswering, ""), nil
	}
	resp := rep.Response
	if err := group.Refusal(resp); err != nil {
		return protocol.HeartbeatResponse{}, fmt.Errorf("%w: %w", coordinator.ErrMemberOwnedByAnotherPrincipal, err)
	}
	return resp, nil
}

// unevaluated answers a heartbeat the host decides not to evaluate (answer.Unevaluated).
func (h *core) unevaluated(req *protocol.HeartbeatRequest, c answer.Cause, detail string) protocol.HeartbeatResponse {
	return group.Unevaluated(req, c, detail, h.opts.Rules)
}

// describe asks the group actor for its views. With create false, or when
// groups.creation is explicit, an unknown group is ErrGroupNotFound and no
// actor is spawned for it; with create true it is created (createGroup).
func (h *core) describe(ctx context.Context, streamPrefix, groupName string, create bool) (*groupmsg.Description, error) {
	if err := h.router.Refusal(); err != nil {
		return nil, err
	}
	key := persistence.GroupKey{StreamPrefix: streamPrefix, ConsumerGroup: groupName}
	if _, ok := h.router.Active(key); !ok {
		stream, err := h.stream(ctx, streamPrefix)
		if err != nil {
			return nil, err
		}
		snap, err := h.opts.Store.LoadGroup(ctx, key)
		switch {
		case errors.Is(err, persistence.ErrNotFound):
			if !create {
				return nil, fmt.Errorf("group %s: %w", key, coordinator.ErrGroupNotFound)
			}
			if h.opts.Limits.ExplicitGroupCreation {
				return nil, fmt.Errorf("group %s does not exist and groups.creation is explicit: create it with POST /coord/v1/streams/{streamPrefix}/groups/{consumerGroup}: %w", key, coordinator.ErrGroupNotFound)
			}
			d, err := h.createGroup(ctx, key)
			if err == nil {
				return d, nil
			}
			if !errors.Is(err, coordinator.ErrGroupExists) { // created meanwhile: describe it below
				return nil, err
			}
		case err != nil:
			return nil, router.StoreErr(err)
		default:
			if d, ok := group.DescribeStored(h.opts.Rules, key, stream, snap, h.opts.Now()); ok {
				return d, nil // idle: answered from the store, not activated (group/passivate.go)
			}
		}
	}
	return h.router.Describe(ctx, key)
}

// Group returns an existing group. A GET changes nothing: an unknown group
// is ErrGroupNotFound (the reference answers 404 GROUP_NOT_FOUND), never
// created; joins, producer routing and CreateGroup create groups.
func (h Admin) Group(ctx context.Context, streamPrefix, groupName string) (protocol.GroupResponse, error) {
	d, err := h.describe(ctx, streamPrefix, groupName, false)
	if err != nil {
		return protocol.GroupResponse{}, err
	}
	return h.withMigration(ctx, d.Group, nil), nil
}

// MonitorGroup returns an existing group.
func (h Monitor) MonitorGroup(ctx context.Context, streamPrefix, groupName string) (protocol.GroupResponse, error) {
	d, err := h.describe(ctx, streamPrefix, groupName, false)
	if err != nil {
		return protocol.GroupResponse{}, err
	}
	return h.withMigration(ctx, d.Group, nil), nil
}

// Members lists an existing group's members.
func (h Monitor) Members(ctx context.Context, streamPrefix, groupName string) (protocol.MembersResponse, error) {
	d, err := h.describe(ctx, streamPrefix, groupName, false)
	if err != nil {
		return protocol.MembersResponse{}, err
	}
	return d.Members, nil
}

// Assignments shows target against current assignment of an existing group.
func (h Monitor) Assignments(ctx context.Context, streamPrefix, groupName string) (protocol.AssignmentsResponse, error) {
	d, err := h.describe(ctx, streamPrefix, groupName, false)
	if err != nil {
		return protocol.AssignmentsResponse{}, err
	}
	return d.Assignments, nil
}

// Consumption shows the members' progress rows of an existing group.
func (h Monitor) Consumption(ctx context.Context, streamPrefix, groupName string) (protocol.ConsumptionResponse, error) {
	d, err := h.describe(ctx, streamPrefix, groupName, false)
	if err != nil {
		return protocol.ConsumptionResponse{}, err
	}
	return d.Consumption, nil
}

// Groups lists every stored group with its state.
func (h Monitor) Groups(ctx context.Context) (protocol.GroupsResponse, error) {
	if err := h.router.Refusal(); err != nil {
		return protocol.GroupsResponse{}, err
	}
	keys, err := h.opts.Store.ListGroups(ctx, "")
	if err != nil {
		return protocol.GroupsResponse{}, router.StoreErr(err)
	}
	out := protocol.GroupsResponse{Groups: make([]protocol.GroupResponse, 0, len(keys))}
	layouts := map[string]*reshard.Layout{}
	for _, k := range keys {
		d, err := h.describe(ctx, k.StreamPrefix, k.ConsumerGroup, false)
		if errors.Is(err, coordinator.ErrGroupNotFound) || errors.Is(err, coordinator.ErrStreamNotFound) {
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
func (h Admin) DeleteGroup(ctx context.Context, streamPrefix, groupName string, req protocol.DeleteGroupRequest) (protocol.DeleteGroupResponse, error) {
	key := persistence.GroupKey{StreamPrefix: streamPrefix, ConsumerGroup: groupName}
	if _, err := h.describe(ctx, streamPrefix, groupName, false); err != nil {
		return protocol.DeleteGroupResponse{}, err
	}
	r, err := h.router.Delete(ctx, key, &groupmsg.DeleteRequest{Force: req.Force, RequestID: coordinator.RequestIDFrom(ctx)})
	if r == nil {
		return protocol.DeleteGroupResponse{}, err
	}
	out := protocol.DeleteGroupResponse{StreamPrefix: streamPrefix, ConsumerGroup: groupName, Deleted: r.Deleted, LiveMembers: r.LiveMembers}
	switch {
	case err != nil:
		return out, err
	case !r.Deleted:
		return out, fmt.Errorf("group %s has %d live member(s); stop them or pass force=true: %w", key, r.LiveMembers, coordinator.ErrGroupHasMembers)
	}
	h.forgetFull(streamPrefix)
	h.router.ForgetKnown(key)
	h.opts.Logger.Info("group deleted", "group", key.String(), "requestId", coordinator.RequestIDFrom(ctx), "requestedBy", req.RequestedBy, "reason", req.Reason, "force", req.Force)
	return out, nil
}

// ProducerRouting returns the routing table, creating the group (and its
// Redis consumer group on every shard) on first use.
func (h Membership) ProducerRouting(ctx context.Context, streamPrefix, groupName string) (protocol.ProducerRouting, error) {
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
