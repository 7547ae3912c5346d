package group

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate"
)

// debug is the group's debug view: what this actor knows, and the rules' state (debugRules).
func (a *groupActor) debug(ctx actor.Context) *groupmsg.DebugState {
	d := &groupmsg.DebugState{
		Group: a.key.String(), NodeID: a.deps.NodeID, Actor: ctx.Self().String(),
		Active: a.state != nil && !a.stopped, ActivationEpoch: a.activation, StoreRevision: a.revision,
		ActivatedAt: stamp(a.activatedAt), ConfirmedAt: stamp(a.confirmedAt), Members: []groupmsg.DebugMember{}, Holders: map[int]string{},
	}
	if a.lastErr != nil {
		d.LastError = a.lastErr.Error()
	}
	if a.state != nil {
		debugRules(d, a.state, a.deps.Now(), func(id string) string {
			if ref, ok := a.members[id]; ok {
				return ref.pid.String()
			}
			return ""
		})
	}
	return d
}

// debugRules fills the rules' part of a group's debug view (meta, members, shard holders) from
// state; the caller has set what its actor knows (activation, revision, last error). actorOf
// names the actor that runs a member, "" when none does.
func debugRules(d *groupmsg.DebugState, state *groupstate.Group, now time.Time, actorOf func(id string) string) {
	meta := state.Meta()
	d.Meta = &meta
	for _, m := range state.Members() {
		dm := groupmsg.DebugMember{ID: m.ID, State: string(m.State), Epoch: m.Epoch, PrevEpoch: m.PrevEpoch,
			LeaseDeadline: stamp(m.LeaseDeadline.Time()), RevokeDeadline: stamp(m.RevokeDeadline.Time()),
			Target: nonNil(m.Target), Assigned: nonNil(m.Assigned), Pending: nonNil(m.Pending), Revoking: nonNil(m.Revoking),
			Actor: actorOf(m.ID)}
		if !m.LeaseDeadline.IsZero() {
			dm.LeaseLeftMs = m.LeaseDeadline.Sub(now).Milliseconds()
		}
		d.Members = append(d.Members, dm)
	}
	for s := 0; s < meta.ShardCount; s++ {
		if id, ok := state.Holder(s); ok {
			d.Holders[s] = id
		}
	}
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}
