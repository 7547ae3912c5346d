package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate/answer"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// Group creation. A group comes into being only through createGroup, which
// checks limits.groups-per-stream BEFORE the group actor is spawned: the
// actor's activation is what stores a new group (its Redis consumer group on
// every shard, then its meta), so nothing is written for a refused creation.
//
// Who may create: POST …/groups/{g} always; a join (memberEpoch 0) and the
// routing/GET-group routes only when groups.creation is implicit. A heartbeat
// with any other epoch for a group that does not exist creates nothing.

// LimitGroupsPerStream is the config key of the groups-per-stream limit; it
// labels the rejection metric and is named in every refusal.
const LimitGroupsPerStream = "limits.groups-per-stream"

// Limits are the limits the service enforces itself (the per-group ones live in
// model.Config).
type Limits struct {
	// GroupsPerStream bounds the groups of one stream; 0 means no limit
	// (config always sets one).
	GroupsPerStream int
	// ExplicitGroupCreation: only CreateGroup creates groups
	// (groups.creation: explicit).
	ExplicitGroupCreation bool
}

// groupStored reports whether the group has stored state (or an activation),
// whether or not its actor runs on this node.
func (h *core) groupStored(ctx context.Context, key persistence.GroupKey) (bool, error) {
	if _, ok := h.router.Active(key); ok {
		return true, nil
	}
	_, err := h.opts.Store.LoadGroup(ctx, key)
	if errors.Is(err, persistence.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, router.StoreErr(err)
	}
	return true, nil
}

// createGroup creates the group of an existing stream unless it exists
// (coordinator.ErrGroupExists) or its stream is at limits.groups-per-stream
// (coordinator.ErrLimitExceeded, counted). Creations on this node are serialized, so
// the count cannot race past the limit here; nodes of a cluster counting at
// the same moment could each add one.
func (h *core) createGroup(ctx context.Context, key persistence.GroupKey) (*groupmsg.Description, error) {
	select {
	case h.creating <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("group %s: waiting to create: %w", key, ctx.Err())
	}
	defer func() { <-h.creating }()
	// h.full is guarded by the creating slot held here.
	stored, err := h.groupStored(ctx, key)
	if err != nil {
		return nil, err
	}
	if stored {
		return nil, fmt.Errorf("group %s: %w", key, coordinator.ErrGroupExists)
	}
	if limit := h.opts.Limits.GroupsPerStream; limit > 0 {
		n, cached := h.full[key.StreamPrefix]
		if !cached || h.opts.Now().After(n.until) {
			count, err := h.countGroups(ctx, key.StreamPrefix)
			if err != nil {
				return nil, err
			}
			n = fullStream{count: count, until: h.opts.Now().Add(fullFor)}
			if count >= limit {
				h.full[key.StreamPrefix] = n
			} else {
				delete(h.full, key.StreamPrefix)
			}
		}
		if n.count >= limit {
			h.limitRejected(LimitGroupsPerStream)
			return nil, fmt.Errorf("stream %s already has %d consumer groups, the most %s = %d allows; delete an unused group (DELETE …/groups/{g}) or raise the limit: %w",
				key.StreamPrefix, n.count, LimitGroupsPerStream, limit, coordinator.ErrLimitExceeded)
		}
	}
	d, err := h.router.Describe(ctx, key)
	if err != nil {
		// Not stored (or not answering): forget the actor, so that later requests go
		// through these checks again instead of to an actor that would create it.
		h.router.Drop(key)
		return nil, err
	}
	return d, nil
}

// fullFor is how long a stream found at limits.groups-per-stream is refused
// new groups without counting again: a flood of joins for new names then
// costs no Redis reads beyond the stream and group lookups. A group deleted
// through this node clears it at once (forgetFull).
const fullFor = time.Second

// fullStream is a stream last counted at or above the limit.
type fullStream struct {
	count int
	until time.Time
}

// forgetFull drops the cached count of a stream whose groups changed.
func (h *core) forgetFull(streamPrefix string) {
	h.creating <- struct{}{}
	delete(h.full, streamPrefix)
	<-h.creating
}

// countGroups counts the stream's stored groups plus those whose actor runs
// here (an activation may not have stored its meta yet).
func (h *core) countGroups(ctx context.Context, streamPrefix string) (int, error) {
	keys, err := h.opts.Store.ListGroups(ctx, streamPrefix)
	if err != nil {
		return 0, router.StoreErr(err)
	}
	seen := make(map[persistence.GroupKey]bool, len(keys))
	for _, k := range keys {
		seen[k] = true
	}
	for _, k := range h.router.ActiveKeys() {
		if k.StreamPrefix == streamPrefix {
			seen[k] = true
		}
	}
	return len(seen), nil
}

func (h *core) limitRejected(limit string) {
	if h.opts.Metrics != nil {
		h.opts.Metrics.LimitRejected(limit)
	}
}

// CreateGroup creates a group explicitly (POST …/groups/{g}).
func (h Admin) CreateGroup(ctx context.Context, streamPrefix, groupName string, req protocol.CreateGroupRequest) (protocol.GroupResponse, error) {
	if err := h.router.Refusal(); err != nil {
		return protocol.GroupResponse{}, err
	}
	key := persistence.GroupKey{StreamPrefix: streamPrefix, ConsumerGroup: groupName}
	if err := checkAssignment(req.Assignment); err != nil {
		return protocol.GroupResponse{}, err
	}
	if _, err := h.stream(ctx, streamPrefix); err != nil {
		return protocol.GroupResponse{}, err
	}
	d, err := h.createGroup(ctx, key)
	if err != nil {
		return protocol.GroupResponse{}, err
	}
	if req.Assignment == protocol.AssignmentCapacity {
		// Before any member can join through this request's answer; a join racing it is
		// reassigned by the change like any member.
		if err := h.setAssignment(ctx, key, req.Assignment); err != nil {
			return protocol.GroupResponse{}, fmt.Errorf("group %s was created with uniform assignment, but setting capacity failed; retry with POST …/groups/{g}/assignment: %w", key, err)
		}
		if d, err = h.router.Describe(ctx, key); err != nil {
			return protocol.GroupResponse{}, err
		}
	}
	h.opts.Logger.Info("group created", slog.String("group", key.String()), slog.String("requestId", coordinator.RequestIDFrom(ctx)),
		slog.String("requestedBy", req.RequestedBy), slog.String("reason", req.Reason), slog.String("assignment", d.Group.Assignment))
	return d.Group, nil
}

// heartbeatUnknownGroup answers a heartbeat for a group that exists nowhere
// (answer.UnknownGroup decides; hb is req as the rules read it). It returns
// done=false only for a join that created the group; the caller then sends the
// heartbeat to the new group actor.
func (h *core) heartbeatUnknownGroup(ctx context.Context, key persistence.GroupKey, hb *model.Heartbeat, req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool) {
	d := answer.UnknownGroup(hb, key.StreamPrefix, key.ConsumerGroup, h.opts.Limits.ExplicitGroupCreation, h.opts.Rules, h.opts.Now())
	if !d.Hold.Until.IsZero() {
		h.node.GroupStateLost(key, groupdeps.LossMemberClaims, d.Hold.Reason, d.Hold.Until)
	}
	if !d.Create {
		return group.Respond(&req, d.Response, h.opts.Rules), true
	}
	_, err := h.createGroup(ctx, key)
	switch {
	case err == nil, errors.Is(err, coordinator.ErrGroupExists): // created, or by a concurrent request
		return protocol.HeartbeatResponse{}, false
	case errors.Is(err, coordinator.ErrLimitExceeded):
		return h.unevaluated(&req, answer.CauseGroupLimit, strings.TrimSuffix(err.Error(), ": "+coordinator.ErrLimitExceeded.Error())), true
	case errors.Is(err, coordinator.ErrStreamNotFound):
		return h.unevaluated(&req, answer.CauseStreamMissing, key.StreamPrefix), true
	}
	return h.unevaluated(&req, answer.CauseCreateFailed, ""), true
}
