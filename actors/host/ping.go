package host

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/service"
	"github.com/redisstream/coordinator/actors/wire"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// ping checks that the actor system processes messages (views.LoopAlive).
type ping struct{}

type pingActor struct{}

func (pingActor) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*ping); ok {
		ctx.Respond(&ping{})
	}
}

// views is the host as the service sees it (service.ClusterViews).
type views struct{ h *Host }

var _ service.ClusterViews = views{}

func (v views) NodeInfo(states []*groupmsg.DebugState) *wire.NodeInfo { return v.h.nodeInfoOf(states) }
func (v views) Nodes(self *wire.NodeInfo, timeout time.Duration) []*wire.NodeInfo {
	return v.h.clusterNodes(self, timeout)
}
func (v views) Health() *protocol.ClusterHealth { return v.h.clusterHealth() }

// LoopAlive checks that the actor system answers a ping within timeout.
func (v views) LoopAlive(timeout time.Duration) error {
	_, err := v.h.system.Root.RequestFuture(v.h.pinger, &ping{}, timeout).Result()
	return err
}
