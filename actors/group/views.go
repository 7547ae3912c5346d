package group

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/group/views"
	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// describe is every monitoring view of the group (views.Describe).
func (a *groupActor) describe() *groupmsg.Description {
	return views.Describe(a.state, views.Activity{
		Events: a.events.List(), InFlight: a.inFlight, Progress: a.progress, RebalanceTimeout: a.deps.Rules.RebalanceTimeout,
	})
}

func (a *groupActor) debug(ctx actor.Context) *groupmsg.DebugState {
	d := &groupmsg.DebugState{
		Group: a.key.String(), NodeID: a.deps.NodeID, Actor: ctx.Self().String(),
		Active: a.state != nil && !a.stopped, ActivationEpoch: a.activation, StoreRevision: a.revision,
		ActivatedAt: views.Stamp(a.activatedAt), ConfirmedAt: views.Stamp(a.confirmedAt), Members: []groupmsg.DebugMember{}, Holders: map[int]string{},
	}
	if a.lastErr != nil {
		d.LastError = a.lastErr.Error()
	}
	if a.state == nil {
		return d
	}
	meta := a.state.Meta()
	d.Meta = &meta
	now := a.deps.Now()
	for _, m := range a.state.Members() {
		dm := groupmsg.DebugMember{ID: m.ID, State: string(m.State), Epoch: m.Epoch, PrevEpoch: m.PrevEpoch,
			LeaseDeadline: views.Stamp(m.LeaseDeadline.Time()), RevokeDeadline: views.Stamp(m.RevokeDeadline.Time()),
			Target: nonNil(m.Target), Assigned: nonNil(m.Assigned), Pending: nonNil(m.Pending), Revoking: nonNil(m.Revoking)}
		if !m.LeaseDeadline.IsZero() {
			dm.LeaseLeftMs = m.LeaseDeadline.Sub(now).Milliseconds()
		}
		if ref, ok := a.members[m.ID]; ok {
			dm.Actor = ref.pid.String()
		}
		d.Members = append(d.Members, dm)
	}
	for s := 0; s < meta.ShardCount; s++ {
		if id, ok := a.state.Holder(s); ok {
			d.Holders[s] = id
		}
	}
	return d
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// sample answers a SampleRequest: a shard is owned when it is in the
// Assigned set of a member that has not expired.
func (a *groupActor) sample(ctx actor.Context) *groupmsg.SampleReply {
	if err := a.ready(ctx); err != nil {
		return &groupmsg.SampleReply{Err: err}
	}
	shards := a.state.Meta().ShardCount
	owned := make([]bool, shards)
	unowned := shards
	for _, m := range a.state.Members() {
		if m.State == model.StateExpired {
			continue
		}
		for _, s := range m.Assigned {
			if s >= 0 && s < shards && !owned[s] {
				owned[s] = true
				unowned--
			}
		}
	}
	return &groupmsg.SampleReply{ShardCount: shards, Unowned: unowned}
}
