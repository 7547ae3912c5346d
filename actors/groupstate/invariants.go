package groupstate

import (
	"fmt"

	"github.com/redisstream/coordinator/actors/groupstate/invariants"
	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// CheckInvariants checks the member records (invariants.Records) and that the holder index and
// counters agree with them, and returns the violations found (empty when healthy). It is
// O(group) and meant for tests, simulations and the debug endpoint.
func (g *Group) CheckInvariants() []string {
	var v []string
	add := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
	ids := sortedIDs(g)
	members := make([]model.Member, len(ids))
	for i, id := range ids {
		members[i] = *g.members[id]
		if members[i].ID != id {
			add("member indexed as %q has id %q", id, members[i].ID)
		}
	}
	rv, t := invariants.Records(g.meta, members)
	v = append(v, rv...)
	for s := range g.holder {
		want := t.Holders[s]
		if got := g.holder.Of(s); got != want {
			add("holder index says shard %d is held by %q, records say %q", s, got, want)
		}
	}
	for s, id := range t.Holders {
		if s >= len(g.holder) {
			add("holder index misses shard %d held by %s", s, id)
		}
	}
	for inst, id := range t.Instances {
		if got := g.instances.owner(inst); got != id {
			add("instance index says %q is held by %q, records say %q", inst, got, id)
		}
	}
	if len(t.Instances) != g.instances.count() {
		add("instance index has %d entries, records say %d", g.instances.count(), len(t.Instances))
	}
	if t.Live != g.live || t.Leaving != g.leaving || t.Retained != g.retained {
		add("counters live=%d leaving=%d retained=%d, records say %d, %d, %d",
			g.live, g.leaving, g.retained, t.Live, t.Leaving, t.Retained)
	}
	return v
}
