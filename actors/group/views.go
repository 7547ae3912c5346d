package group

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/group/views"
)

// describe is every monitoring view of the group (views.Describe).
func (a *groupActor) describe() *groupmsg.Description {
	return views.Describe(a.state, views.Activity{
		Events: a.events.list(), InFlight: a.inFlight, Progress: a.progress, RebalanceTimeout: a.deps.Rules.RebalanceTimeout,
	})
}

// debug is the group's debug view: what this actor knows, and the rules' state (views.Debug).
func (a *groupActor) debug(ctx actor.Context) *groupmsg.DebugState {
	d := &groupmsg.DebugState{
		Group: a.key.String(), NodeID: a.deps.NodeID, Actor: ctx.Self().String(),
		Active: a.state != nil && !a.stopped, ActivationEpoch: a.activation, StoreRevision: a.revision,
		ActivatedAt: views.Stamp(a.activatedAt), ConfirmedAt: views.Stamp(a.confirmedAt), Members: []groupmsg.DebugMember{}, Holders: map[int]string{},
	}
	if a.lastErr != nil {
		d.LastError = a.lastErr.Error()
	}
	if a.state != nil {
		views.Debug(d, a.state, a.deps.Now(), func(id string) string {
			if ref, ok := a.members[id]; ok {
				return ref.pid.String()
			}
			return ""
		})
	}
	return d
}

// sample answers a SampleRequest (views.Sample).
func (a *groupActor) sample(ctx actor.Context) *groupmsg.SampleReply {
	if err := a.ready(ctx); err != nil {
		return &groupmsg.SampleReply{Err: err}
	}
	return views.Sample(a.state)
}
