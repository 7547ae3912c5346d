package group

import (
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// groupChange applies a change of the group's settings a host asked for: a resize (the
// stream's new shard set) or an assignment mode.
func groupChange(a *groupActor, ctx actor.Context, msg any) error {
	if m, ok := msg.(*groupmsg.AssignmentRequest); ok {
		return setAssignment(a, ctx, m)
	}
	return a.resize(ctx, msg.(*groupmsg.ResizeRequest))
}

// setAssignment sets the group's assignment mode (an operator's request): the rules decide
// (groupstate.SetAssignment), the change is persisted with the group's meta, then applied.
// The service checked the mode; an unknown one is still refused here by the rules.
func setAssignment(a *groupActor, ctx actor.Context, msg *groupmsg.AssignmentRequest) error {
	if err := a.ready(ctx); err != nil {
		return err
	}
	before := a.state.Meta().Assignment.Effective()
	c, err := groupstate.SetAssignment(a.state, model.AssignmentMode(msg.Assignment), a.deps.Now())
	if err != nil || c == nil {
		return err
	}
	if err := a.persist(ctx, c); err != nil {
		return err
	}
	applyNudging(a, ctx, c, "")
	a.deps.Logger.Info("group assignment mode changed", slog.String("group", a.key.String()), a.reqAttr(),
		slog.String("from", string(before)), slog.String("to", msg.Assignment),
		slog.Int64("groupEpoch", a.state.Meta().GroupEpoch))
	return nil
}
