package views

import (
	"slices"
	"time"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Debug fills the rules' part of a group's debug view (meta, members, shard holders) from
// state; the caller has set what its actor knows (activation, revision, last error). actorOf
// names the actor that runs a member, "" when none does.
func Debug(d *groupmsg.DebugState, state *groupstate.Group, now time.Time, actorOf func(id string) string) {
	meta := state.Meta()
	d.Meta = &meta
	for _, m := range state.Members() {
		dm := groupmsg.DebugMember{ID: m.ID, State: string(m.State), Epoch: m.Epoch, PrevEpoch: m.PrevEpoch,
			LeaseDeadline: Stamp(m.LeaseDeadline.Time()), RevokeDeadline: Stamp(m.RevokeDeadline.Time()),
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

// Sample is the ownership sample of a group: a shard is owned when it is in the Assigned set
// of a member that has not expired. Revoking counts the shards live members were told to
// release and have not released; Waiting, the shards a live member may still read although
// they are outside its target and it was not told to release them yet (held back by the
// move cap or a paused rebalancing).
func Sample(state *groupstate.Group) *groupmsg.SampleReply {
	shards := state.Meta().ShardCount
	owned := make([]bool, shards)
	staying := make([]bool, shards) // the member's target and revoking shards, one member at a time
	mark := func(set []int, v bool) {
		for _, s := range set {
			if s >= 0 && s < shards {
				staying[s] = v
			}
		}
	}
	out := &groupmsg.SampleReply{ShardCount: shards, Unowned: shards, PausedSince: state.Meta().Paused.Since}
	for _, m := range state.Members() {
		if m.State == model.StateExpired {
			continue
		}
		out.Revoking += len(m.Revoking)
		mark(m.Target, true)
		mark(m.Revoking, true)
		for _, s := range m.Assigned {
			if s < 0 || s >= shards { // outside the shard count (a scale-in under way)
				if !slices.Contains(m.Target, s) && !slices.Contains(m.Revoking, s) {
					out.Waiting++
				}
				continue
			}
			if !owned[s] {
				owned[s] = true
				out.Unowned--
			}
			if !staying[s] {
				out.Waiting++
			}
		}
		mark(m.Target, false)
		mark(m.Revoking, false)
	}
	return out
}
