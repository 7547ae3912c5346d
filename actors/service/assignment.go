package service

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// SetAssignment sets an existing group's assignment mode (POST …/groups/{g}/assignment): the
// group actor stores it with the group's meta and reassigns with it (groupstate/capacity.go).
func (h Admin) SetAssignment(ctx context.Context, streamPrefix, groupName string, req protocol.SetAssignmentRequest) (protocol.GroupResponse, error) {
	if err := checkAssignment(req.Assignment); err != nil {
		return protocol.GroupResponse{}, err
	}
	if _, err := h.describe(ctx, streamPrefix, groupName, false); err != nil {
		return protocol.GroupResponse{}, err
	}
	key := persistence.GroupKey{StreamPrefix: streamPrefix, ConsumerGroup: groupName}
	if err := h.setAssignment(ctx, key, req.Assignment); err != nil {
		return protocol.GroupResponse{}, err
	}
	h.opts.Logger.Info("group assignment set", slog.String("group", key.String()), slog.String("requestId", coordinator.RequestIDFrom(ctx)),
		slog.String("assignment", req.Assignment), slog.String("requestedBy", req.RequestedBy), slog.String("reason", req.Reason))
	return h.Group(ctx, streamPrefix, groupName)
}

func (h *core) setAssignment(ctx context.Context, key persistence.GroupKey, mode string) error {
	err := h.router.SetAssignment(ctx, key, &groupmsg.AssignmentRequest{Assignment: mode, RequestID: coordinator.RequestIDFrom(ctx)})
	if err != nil {
		return fmt.Errorf("set the assignment of group %s: %w", key, router.GroupErr(key, err))
	}
	return nil
}

// checkAssignment refuses a mode that is not one.
func checkAssignment(mode string) error {
	switch mode {
	case "", protocol.AssignmentUniform, protocol.AssignmentCapacity:
		return nil
	}
	return fmt.Errorf(`assignment %q is not a mode; send {"assignment": "uniform"} (every member the same share) or {"assignment": "capacity"} (shares in proportion to each member's runtimeMaxConcurrency): %w`,
		mode, coordinator.ErrInvalidArgument)
}
