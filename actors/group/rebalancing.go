package group

import (
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate"
)

// setRebalancing handles an operator's pause or resume of the group's rebalancing
// (groupmsg.RebalancingRequest): the rules decide (groupstate.SetPaused), the
// pause is persisted with the group's meta before it is applied, and the reply
// is the group as it is then. A pause of a paused group, or a resume of an
// active one, writes nothing and answers the group as it is.
func (a *groupActor) setRebalancing(ctx actor.Context, msg *groupmsg.RebalancingRequest) *groupmsg.Description {
	if err := a.ready(ctx); err != nil {
		return &groupmsg.Description{Err: err}
	}
	c := groupstate.SetPaused(a.state, msg.Paused, msg.RequestedBy, msg.Reason, a.deps.Now())
	if c != nil {
		if err := a.persist(ctx, c); err != nil {
			return &groupmsg.Description{Err: err}
		}
		applyNudging(a, ctx, c, "")
		what := "rebalancing resumed: members' next heartbeats rebalance the group"
		if msg.Paused {
			what = "rebalancing paused: no shard moves between live members until resumed; expired or fenced members' shards are still reassigned"
		}
		a.deps.Logger.Info(what, slog.String("group", a.key.String()), a.reqAttr(),
			slog.String("requestedBy", msg.RequestedBy), slog.String("reason", msg.Reason))
	}
	return a.describe()
}
