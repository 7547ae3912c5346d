package groupstate

import (
	"math/rand"
	"slices"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// Capacity-weighted assignment in the simulation (capacity.go): on a third of the schedules the
// group starts in capacity mode, members report capacities of mixed sizes (none among them),
// change them while faults run, and the operator switches the mode back and forth. Drawn from
// a source of their own, so that every schedule's other faults stay those of its seed.

// simCapacities are the runtimeMaxConcurrency values members report (0: none).
var simCapacities = []int{0, 1, 2, 4, 8, 16}

func (s *sim) capacityInit(seed int64) {
	rng := rand.New(rand.NewSource(seed*7919 + 17))
	if rng.Intn(3) != 0 {
		return
	}
	s.capRng = rng
	c, err := SetAssignment(s.g, model.AssignCapacity, s.now)
	if err != nil {
		s.fail("set capacity mode: %v", err)
	}
	s.apply(c)
	for _, m := range s.members { // spawned before the mode was drawn
		m.capacity = s.drawCapacity()
	}
	simStats["capacity-schedules"]++
}

// drawCapacity is a new member's runtimeMaxConcurrency: 4 on uniform schedules.
func (s *sim) drawCapacity() int {
	if s.capRng == nil {
		return 4
	}
	return simCapacities[s.capRng.Intn(len(simCapacities))]
}

// capacityFault: a member changes its capacity, or the operator switches the mode (never while
// the group's activation moves: nobody would evaluate the request).
func (s *sim) capacityFault() {
	if s.capRng == nil {
		return
	}
	switch r := s.capRng.Intn(40); {
	case r < 3 && len(s.members) > 0:
		m := s.members[s.capRng.Intn(len(s.members))]
		m.capacity = s.drawCapacity()
		s.log("%s now reports capacity %d", m.id, m.capacity)
		simStats["capacity-change"]++
	case r == 3 && !s.moving():
		mode := model.AssignCapacity
		if s.g.Meta().Assignment == model.AssignCapacity {
			mode = model.AssignUniform
		}
		c, err := SetAssignment(s.g, mode, s.now)
		if err != nil {
			s.fail("set assignment %s: %v", mode, err)
		}
		s.log("assignment set to %s", mode)
		simStats["assignment-switch"]++
		s.apply(c)
	}
}

// checkCapacity replaces checkSticky when either assignment epoch used capacity weights: every
// member taking part in both keeps min(old, new) of its old target (minimal movement for the
// new quotas), and with capacity mode now no member is drifted from its share (capacity.go).
func (s *sim) checkCapacity(old, cur map[string][]int) {
	for id := range cur {
		if len(old[id]) == 0 && s.holdsAny(id) {
			// A member new to the assignment that already holds shards (several joined before
			// any was confirmed): the assignor is sticky to what it holds, and may take shards
			// of another member's old target first (as checkSticky allows).
			simStats["confirm-holding"]++
			old = nil
		}
	}
	for id, sh := range cur {
		if o := old[id]; len(o) > 0 {
			if kept := len(shardset.Intersect(o, sh)); kept < min(len(o), len(sh)) {
				s.fail("member %s kept %d of its %d shards with a new target of %d", id, kept, len(o), len(sh))
			}
		}
	}
	if s.g.Meta().Assignment != model.AssignCapacity {
		return
	}
	ids := make([]string, 0, len(cur))
	for id := range cur {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	members := make([]*model.Member, len(ids))
	for i, id := range ids {
		m := s.member(id)
		members[i] = &m
	}
	if d := driftedMembers(members, s.shards); len(d) > 0 {
		s.fail("members %v drifted from their capacity shares right after a reassignment", d)
	}
}

func (s *sim) member(id string) model.Member {
	m, ok := s.g.Member(id)
	if !ok {
		s.fail("member %s not found", id)
	}
	return m
}
