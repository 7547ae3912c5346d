package group

import (
	"time"

	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/persistence"
)

// DescribeStored answers the monitoring views of a group that runs nowhere
// on this node from its stored state, without activating it, if no member
// occupies it (ok false otherwise: then it must be activated, so that
// members that died are expired rather than shown live). Listing 10,000
// idle groups must not activate them.
func DescribeStored(rules groupstate.Config, key persistence.GroupKey, stream persistence.StreamRecord, snap persistence.GroupSnapshot, now time.Time) (*Description, bool) {
	state, err := restore(rules, key, stream, snap, now)
	if err != nil || state.Occupied() > 0 {
		return nil, false
	}
	state.Apply(state.Prune(now)) // in the view only: retention passed while nobody hosted it
	a := &groupActor{key: key, state: state}
	return a.describe(), true
}
