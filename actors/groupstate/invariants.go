package groupstate

import (
	"fmt"
	"slices"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// CheckInvariants checks the member records (checkRecords) and that the holder index and
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
	rv, t := checkRecords(g.meta, members)
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

// recordTally is what the records say a group's indexes and counters must hold.
type recordTally struct {
	Holders                 map[int]string    // shard → the member whose Assigned ∪ Revoking holds it
	Live, Leaving, Retained int               // STARTING/ACTIVE, LEAVING, EXPIRED/FENCED members
	Instances               map[string]string // instanceId → the live member holding it
}

// checkRecords checks the records of one group, members sorted by id, and returns the violations
// found (empty when healthy) and the tally the group's indexes must agree with: single holder
// per shard, per-state shape of the records, a balanced target covering every shard when live
// members exist (computed over the confirmed members when any exists), Assigned ⊆ Target at the
// assignment epoch, Pending = Target − Assigned, and sane epochs. It is O(group).
func checkRecords(mt model.Meta, members []model.Member) ([]string, recordTally) {
	var v []string
	add := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
	if mt.GroupEpoch < 0 || mt.AssignmentEpoch < 0 || mt.AssignmentEpoch > mt.GroupEpoch {
		add("epochs out of order: groupEpoch %d, assignmentEpoch %d", mt.GroupEpoch, mt.AssignmentEpoch)
	}
	if mt.ShardCount < 0 || mt.MetadataVersion < 0 {
		add("negative shardCount %d or metadataVersion %d", mt.ShardCount, mt.MetadataVersion)
	}
	holders := map[int]string{}
	instances := map[string]string{}
	targetOwner := map[int]string{}
	live, leaving, kept := 0, 0, 0
	minT, maxT := -1, -1
	active := 0
	for i := range members {
		if members[i].State == model.StateActive {
			active++
		}
	}
	for i := range members {
		m := &members[i]
		id := m.ID
		if !m.State.Valid() {
			add("member %s: unknown state %q", id, m.State)
		}
		for name, s := range map[string][]int{"target": m.Target, "assigned": m.Assigned, "revoking": m.Revoking, "pending": m.Pending} {
			if !shardset.SortedUnique(s) {
				add("member %s: %s %v not sorted/unique/non-negative", id, name, s)
			}
		}
		if x := shardset.Intersect(m.Assigned, m.Revoking); len(x) > 0 {
			add("member %s: shards %v both assigned and revoking", id, x)
		}
		if m.Epoch < 0 || m.PrevEpoch < 0 || m.PrevEpoch > m.Epoch || m.Epoch > mt.AssignmentEpoch {
			add("member %s: epoch %d prev %d (assignmentEpoch %d)", id, m.Epoch, m.PrevEpoch, mt.AssignmentEpoch)
		}
		switch m.State {
		case model.StateExpired:
			if len(m.Target)+len(m.Assigned)+len(m.Revoking)+len(m.Pending) > 0 {
				add("member %s: EXPIRED but still has shards", id)
			}
		case model.StateFenced, model.StateLeaving:
			if len(m.Target)+len(m.Pending) > 0 {
				add("member %s: %s but still has a target", id, m.State)
			}
			if m.State == model.StateLeaving && len(m.Assigned) > 0 {
				add("member %s: LEAVING with assigned %v", id, m.Assigned)
			}
		}
		if m.State.Holds() {
			for _, s := range shardset.Union(m.Assigned, m.Revoking) {
				if o, dup := holders[s]; dup {
					add("shard %d held by both %s and %s", s, o, id)
				}
				holders[s] = id
			}
		}
		if m.State == model.StateLeaving {
			leaving++
		}
		if m.State.Retained() {
			kept++
		}
		if !m.State.InTarget() {
			continue
		}
		live++
		if m.InstanceID != "" {
			if o, dup := instances[m.InstanceID]; dup {
				add("instance %q held by both %s and %s", m.InstanceID, o, id)
			}
			instances[m.InstanceID] = id
		}
		if m.Away() && len(m.Assigned) > 0 {
			add("member %s: away after a temporary leave with assigned %v", id, m.Assigned)
		}
		if m.Epoch <= 0 {
			add("member %s: live with epoch %d", id, m.Epoch)
		}
		if m.Epoch == mt.AssignmentEpoch {
			if x := shardset.Diff(m.Assigned, m.Target); len(x) > 0 {
				add("member %s: assigned %v outside its target at the assignment epoch", id, x)
			}
		}
		if !slices.Equal(m.Pending, shardset.Diff(m.Target, m.Assigned)) {
			add("member %s: pending %v != target − assigned %v", id, m.Pending, shardset.Diff(m.Target, m.Assigned))
		}
		for _, s := range m.Target {
			if s >= mt.ShardCount {
				add("member %s: target shard %d beyond shardCount %d", id, s, mt.ShardCount)
			}
			if o, dup := targetOwner[s]; dup {
				add("shard %d targeted to both %s and %s", s, o, id)
			}
			targetOwner[s] = id
		}
		if active > 0 && m.State != model.StateActive {
			// Not confirmed while others are: no target (admission, see recompute).
			if len(m.Target) > 0 && mt.AssignmentEpoch == mt.GroupEpoch {
				add("member %s: %s with target %v while confirmed members exist", id, m.State, m.Target)
			}
			continue
		}
		n := len(m.Target)
		if minT < 0 || n < minT {
			minT = n
		}
		if n > maxT {
			maxT = n
		}
	}
	if live > 0 && mt.AssignmentEpoch == mt.GroupEpoch {
		if len(targetOwner) != mt.ShardCount {
			add("target covers %d of %d shards with %d live members", len(targetOwner), mt.ShardCount, live)
		}
		// With capacity-weighted assignment the sizes follow the weights instead (the tests
		// check them against the shares: groupstate's capacity tests).
		if maxT-minT > 1 && mt.Assignment != model.AssignCapacity {
			add("target unbalanced: %d..%d shards per member", minT, maxT)
		}
	}
	return v, recordTally{Holders: holders, Live: live, Leaving: leaving, Retained: kept, Instances: instances}
}
