package service

import (
	"context"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// SetRebalancing pauses (req.Paused true) or resumes an existing group's
// rebalancing (groupstate/pause.go) and returns the group as it is then. The
// group's actor decides and persists it with the group's meta, so the pause
// survives restarts and failovers. An unknown group is ErrGroupNotFound (it is
// never created). The caller checked the body: req.Paused is set.
func (h Admin) SetRebalancing(ctx context.Context, streamPrefix, groupName string, req protocol.RebalancingRequest) (protocol.GroupResponse, error) {
	if _, err := h.describe(ctx, streamPrefix, groupName, false); err != nil {
		return protocol.GroupResponse{}, err
	}
	key := persistence.GroupKey{StreamPrefix: streamPrefix, ConsumerGroup: groupName}
	d, err := router.SetRebalancing(ctx, h.router, key, &groupmsg.RebalancingRequest{
		Paused: req.Paused != nil && *req.Paused, RequestedBy: req.RequestedBy, Reason: req.Reason,
		RequestID: coordinator.RequestIDFrom(ctx)})
	if err != nil {
		return protocol.GroupResponse{}, err
	}
	return h.withMigration(ctx, d.Group, nil), nil
}
