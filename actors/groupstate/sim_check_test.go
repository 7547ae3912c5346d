package groupstate

import (
	"slices"
	"sort"
	"strings"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// Per-step and final properties checked by the simulation.

func (s *sim) apply(c *Change) {
	s.store.persist(c)         // persist before apply
	var revoked map[int]string // shard → confirmed member it is newly revoked from
	if c != nil {
		for _, m := range c.Members {
			old, ok := s.g.Member(m.ID)
			if ok && old.State == model.StateActive && m.State == model.StateActive {
				for _, sh := range shardset.Diff(m.Revoking, old.Revoking) {
					if revoked == nil {
						revoked = map[int]string{}
					}
					revoked[sh] = m.ID
				}
			}
		}
	}
	checkPausedRevocations(s, c)
	applyChecked(s.t, s.g, c)
	// Admission: a shard is never revoked from a confirmed member for an unconfirmed one.
	for _, m := range s.g.Members() {
		for _, sh := range m.Target {
			if from, ok := revoked[sh]; ok && m.State == model.StateStarting {
				s.fail("shard %d revoked from confirmed %s for unconfirmed %s", sh, from, m.ID)
			}
		}
	}
	if len(revoked) > 0 {
		simStats["revocations"] += len(revoked)
	}
	s.check()
}

// participants returns the targets of the members the assignor works for: the confirmed
// (ACTIVE) members when any exists, else every live member (admission, see recompute).
func participants(g *Group) map[string][]int {
	all, active := map[string][]int{}, map[string][]int{}
	for _, m := range g.Members() {
		if m.State.InTarget() {
			all[m.ID] = m.Target
			if m.State == model.StateActive {
				active[m.ID] = m.Target
			}
		}
	}
	if len(active) > 0 {
		return active
	}
	return all
}

// check runs every per-step property.
func (s *sim) check() {
	s.t.Helper()
	s.trackLeases()
	if v := s.g.CheckInvariants(); len(v) > 0 {
		s.fail("invariants: %s", strings.Join(v, "; "))
	}
	s.checkMoveCap()
	// Real-world single owner: no shard read (or drained) by two live processes, and whoever
	// reads a shard is its holder for the coordinator.
	readers := map[int]string{}
	for _, m := range s.members {
		if !m.alive {
			continue
		}
		for sh := range m.orphan {
			if !m.reading[sh] && m.draining[sh].IsZero() {
				delete(m.orphan, sh)
			}
		}
		for sh := range m.reading {
			s.reader(readers, sh, m)
		}
		for sh := range m.draining {
			s.reader(readers, sh, m)
		}
	}
	// No epoch regression: group level and per member record.
	mt := s.g.Meta()
	if mt.MetadataVersion != 0 {
		s.fail("group metadataVersion %d: the coordinator never issued it (the simulation never resizes)", mt.MetadataVersion)
	}
	if mt.GroupEpoch < s.lastMeta.GroupEpoch || mt.AssignmentEpoch < s.lastMeta.AssignmentEpoch || mt.MetadataVersion < s.lastMeta.MetadataVersion {
		s.fail("group epochs regressed: %+v -> %+v", s.lastMeta, mt)
	}
	for _, m := range s.g.Members() {
		if m.Epoch < s.epochOf[m.ID] {
			s.fail("member %s record epoch regressed %d -> %d", m.ID, s.epochOf[m.ID], m.Epoch)
		}
		s.epochOf[m.ID] = m.Epoch
	}
	if mt.AssignmentEpoch != s.lastMeta.AssignmentEpoch {
		if mt.Assignment == model.AssignCapacity || s.lastMeta.Assignment == model.AssignCapacity {
			s.checkCapacity(s.target, participants(s.g)) // sim_capacity_test.go
		} else {
			s.checkSticky(s.target, participants(s.g))
		}
		s.target = participants(s.g)
	} else if cur := participants(s.g); len(cur) == len(s.target) {
		s.checkHandBack(s.target, cur)
		s.target = cur
	}
	s.lastMeta = mt
}

func (s *sim) holdsAny(id string) bool {
	m, ok := s.g.Member(id)
	return ok && len(m.Assigned)+len(m.Revoking) > 0
}

func (s *sim) reader(readers map[int]string, sh int, m *simMember) {
	id := m.id
	if o, dup := readers[sh]; dup {
		s.fail("shard %d read by both %s and %s", sh, o, id)
	}
	readers[sh] = id
	if h, _ := s.g.Holder(sh); h != id && !m.orphan[sh] {
		s.fail("shard %d read by %s but the coordinator's holder is %q", sh, id, h)
	}
}

// checkSticky (over the assignor's participants, see participants): a single join, or the
// confirmation of a member, moves at most what balance needs (old members only lose, and the
// total taken is minimal for balanced quotas); departures move only the departed's shards.
func (s *sim) checkSticky(old, cur map[string][]int) {
	var added, removed []string
	for id := range cur {
		if _, ok := old[id]; !ok {
			added = append(added, id)
		}
	}
	for id := range old {
		if _, ok := cur[id]; !ok {
			removed = append(removed, id)
		}
	}
	if len(old) == 0 || len(cur) == 0 {
		return
	}
	switch {
	case len(added) == 0:
		for id, sh := range cur {
			if len(shardset.Diff(old[id], sh)) > 0 {
				s.fail("departure of %v moved shards %v away from %s", removed, shardset.Diff(old[id], sh), id)
			}
		}
	case len(added) == 1 && len(removed) == 0 && s.holdsAny(added[0]):
		// The confirmation of a member that already holds shards (several members joined
		// before any was confirmed, admission): the assignor is sticky to what it holds,
		// which saves real moves but is not a pure join over targets.
		simStats["confirm-holding"]++
	case len(added) == 1 && len(removed) == 0:
		n := len(cur)
		base, extra := s.shards/n, s.shards%n
		var counts []int
		moved := 0
		for id, sh := range old {
			if len(shardset.Diff(cur[id], sh)) > 0 {
				s.fail("join of %v gave old member %s new shards %v", added, id, shardset.Diff(cur[id], sh))
			}
			moved += len(sh) - len(cur[id])
			counts = append(counts, len(sh))
		}
		sort.Sort(sort.Reverse(sort.IntSlice(counts)))
		need := 0
		for i, c := range counts {
			q := base
			if i < extra {
				q++
			}
			need += max(0, c-q)
		}
		if moved > need {
			s.fail("join of %v moved %d shards, balance needs %d", added, moved, need)
		}
	}
}

// settled: every shard is in exactly one live member's Assigned and that process reads it.
func (s *sim) settled() bool {
	if s.g.Live() == 0 {
		return false
	}
	owner := map[int]string{}
	for _, m := range s.g.Members() {
		// Assigned ≠ Target: a move cap still holds a revocation back.
		if !m.State.InTarget() || len(m.Revoking) > 0 || len(m.Pending) > 0 || len(m.Assigned) != len(m.Target) {
			if m.State.InTarget() {
				return false
			}
			continue
		}
		for _, sh := range m.Assigned {
			owner[sh] = m.ID
		}
	}
	if len(owner) != s.shards {
		return false
	}
	for sh, id := range owner {
		for _, m := range s.members {
			if m.id == id && (!m.alive || !m.reading[sh]) {
				return false
			}
		}
	}
	return true
}

// checkMoveCap: with a move cap, live members (not away) never revoke more shards at once than
// the cap.
func (s *sim) checkMoveCap() {
	s.t.Helper()
	limit := moveLimit(s.g.Config(), s.g.Meta().ShardCount)
	if limit == 0 {
		return
	}
	revoking := 0
	for _, m := range s.g.Members() {
		if capped(&m) {
			revoking += len(m.Revoking)
		}
	}
	if revoking > limit {
		s.fail("%d shards revoking at once, move cap %d", revoking, limit)
	}
	simStats["move-cap-steps"]++
}

// checkHandBack: without a new assignment epoch, a participant is replaced only by a static
// member's next incarnation taking over its target exactly; every other target is unchanged.
func (s *sim) checkHandBack(old, cur map[string][]int) {
	var added, removed []string
	for id := range cur {
		if _, ok := old[id]; !ok {
			added = append(added, id)
		}
	}
	for id, sh := range old {
		if c, ok := cur[id]; !ok {
			removed = append(removed, id)
		} else if !slices.Equal(c, sh) {
			s.fail("target of %s changed %v -> %v without a new assignment epoch", id, sh, c)
		}
	}
	if len(added) == 1 && len(removed) == 1 && !slices.Equal(cur[added[0]], old[removed[0]]) {
		s.fail("%s took over from %s with target %v, not its %v", added[0], removed[0], cur[added[0]], old[removed[0]])
	}
}
