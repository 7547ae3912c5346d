package router

import (
	"context"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/persistence"
)

// SetRebalancing asks the group to pause or resume its rebalancing
// (activating it where it lives, forwarding through the cluster like every
// request) and returns the group as it is then. The group's own error is
// mapped by GroupErr. A function, not a method: Router is at its method
// budget.
func SetRebalancing(ctx context.Context, r *Router, key persistence.GroupKey, req *groupmsg.RebalancingRequest) (*groupmsg.Description, error) {
	return askDescription(ctx, r, key, req)
}
