package groupstate

import (
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// Pause and resume of rebalancing in the simulation (pause.go), as free functions taking *sim
// (the sim stays within the 40-method limit). An operator pauses or resumes at random while
// faults run; every invariant of check() holds throughout, and:
//
//   - while paused, no live member (not away) is ever told to start a revocation
//     (checkPausedRevocations, on every Change);
//   - when faults stop with the group paused, every shard must end up read by a live member
//     within the liveness bound although nothing voluntary moves (liveWhilePaused): the shards
//     of crashed, fenced and departed members are still granted. Then the group is resumed and
//     must settle balanced as usual.

// togglePause pauses an active group or resumes a paused one, as an operator would.
func togglePause(s *sim) {
	paused := !s.g.Meta().Paused.IsSet()
	s.log("operator %s rebalancing", map[bool]string{true: "pauses", false: "resumes"}[paused])
	s.apply(SetPaused(s.g, paused, "sim", "random", s.now))
	simStats[map[bool]string{true: "pause", false: "resume"}[paused]]++
}

// checkPausedRevocations fails when c, evaluated on a paused group, starts a revocation of a
// live member that is not away (a voluntary move).
func checkPausedRevocations(s *sim, c *Change) {
	s.t.Helper()
	if c == nil || !s.g.Meta().Paused.IsSet() {
		return
	}
	for _, m := range c.Members {
		old, ok := s.g.Member(m.ID)
		if !ok || !capped(&m) {
			continue
		}
		if started := shardset.Diff(m.Revoking, old.Revoking); len(started) > 0 {
			s.fail("rebalancing is paused, yet %s was told to revoke %v", m.ID, started)
		}
	}
	simStats["paused-steps"]++
}

// liveWhilePaused runs, when the group is paused as faults stop, until every shard is read by
// a live member (within bound), then resumes the group. A group that is not paused is left as
// it is.
func liveWhilePaused(s *sim, bound time.Duration) {
	if !s.g.Meta().Paused.IsSet() {
		return
	}
	deadline := s.now.Add(bound)
	for !allRead(s) {
		if !s.now.Before(deadline) {
			s.fail("rebalancing paused: shards still unread %s after faults stopped", bound)
		}
		s.step()
	}
	simStats["paused-live"]++
	togglePause(s)
}

// allRead: every shard is Assigned to a live member whose process reads it.
func allRead(s *sim) bool {
	read := 0
	for _, m := range s.g.Members() {
		if !m.State.InTarget() {
			continue
		}
		for _, sm := range s.members {
			if sm.id != m.ID || !sm.alive {
				continue
			}
			for _, sh := range m.Assigned {
				if sm.reading[sh] {
					read++
				}
			}
		}
	}
	return read == s.shards
}
