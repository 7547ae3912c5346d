package group

import (
	"time"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/persistence"
)

// DescribeStored answers the monitoring views (and producer routing) of a
// group that runs nowhere on this node from its stored state, without
// activating it, if no member occupies it and its stream did not change
// (ok false otherwise: then it must be activated, so that members that died
// are expired rather than shown live, and the stream's change is applied).
// Listing 10,000 idle groups must not activate them.
func DescribeStored(rules model.Config, key persistence.GroupKey, stream persistence.StreamRecord, snap persistence.GroupSnapshot, now time.Time) (*groupmsg.Description, bool) {
	state, err := restore(rules, key, stream, snap, now, now)
	if err != nil || state.Occupied() > 0 {
		return nil, false
	}
	if meta := state.Meta(); streamChanged(stream, meta.ShardCount, meta.MetadataVersion) {
		return nil, false // the stream changed while the group was idle: activation applies it
	}
	state.Apply(state.Prune(now)) // in the view only: retention passed while nobody hosted it
	a := &groupActor{key: key, state: state, deps: &Deps{Rules: rules}}
	return a.describe(), true
}
