package groupstate

import (
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Activation moves in the simulation: at random moments the group's activation moves, either
// gracefully (the release hands the timers over: HandOver, then RestoreHandedOver) or by a
// crash (fresh leases from the store: Restore). A move takes a random hand-over time during
// which nobody answers (heartbeats are refused with RETRY, no timer runs).
//
// Bounds checked after every timer evaluation, for every member record not EXPIRED, with t its
// last accepted heartbeat: it is expired by t + TTL + interval + (crash moves since t) × TTL +
// (hand-over time since t), a graceful move slower than SlowMove counting as a crash; and a
// member is never expired before t + TTL (a move never shortens a lease).

// leaseTrack is what the bounds of one member id are counted from.
type leaseTrack struct {
	hbAt    time.Time     // last heartbeat the coordinator accepted
	crashes int           // crash moves (and failovers) since
	gaps    time.Duration // hand-over time of moves since
}

// moving reports whether the group is between two activations.
func (s *sim) moving() bool { return !s.moveStart.IsZero() }

// startMove releases the activation now; the next one starts after a random hand-over time.
func (s *sim) startMove(graceful bool) {
	gap := time.Duration(s.rng.Intn(3000)) * time.Millisecond
	if s.rng.Intn(8) == 0 {
		gap = time.Duration(s.rng.Intn(int(simTTL/time.Millisecond))) * time.Millisecond // slow
	}
	s.moveStart, s.moveUntil, s.handed = s.now, s.now.Add(gap), nil
	kind := "crash"
	if graceful {
		s.handed, kind = s.g.HandOver(), "graceful"
	}
	s.log("activation moves (%s), hand-over %s", kind, gap)
	simStats["move-"+kind]++
}

// finishMove starts the next activation once the hand-over time has passed.
func (s *sim) finishMove() {
	if !s.moving() || s.now.Before(s.moveUntil) {
		return
	}
	gap := s.now.Sub(s.moveStart)
	if s.handed == nil || gap > SlowMove(s.g.Config()) {
		s.crashed() // a slow move gives fresh leases, like a crash
		if s.handed != nil {
			simStats["move-slow"]++
		}
	}
	for _, tr := range s.tracks {
		tr.gaps += gap
	}
	s.restoreChecked(s.handed, s.moveStart)
	s.log("activation restored after %s (carried %d leases)", gap, len(s.handed))
	s.moveStart, s.handed = time.Time{}, nil
}

// crashed counts a crash move for every tracked member.
func (s *sim) crashed() {
	for _, tr := range s.tracks {
		tr.crashes++
	}
}

func (s *sim) resetLeaseTracks() {
	for _, tr := range s.tracks {
		*tr = leaseTrack{hbAt: s.now}
	}
}

// trackLeases notes accepted heartbeats (a LastHeartbeat later than the tracked one).
func (s *sim) trackLeases() {
	if s.tracks == nil {
		s.tracks = map[string]*leaseTrack{}
	}
	for _, m := range s.g.Members() {
		tr := s.tracks[m.ID]
		if tr == nil {
			at := m.LastHeartbeat
			if at.IsZero() {
				at = model.InstantOf(s.now)
			}
			s.tracks[m.ID] = &leaseTrack{hbAt: at.Time()}
			continue
		}
		if m.LastHeartbeat.After(tr.hbAt) {
			*tr = leaseTrack{hbAt: m.LastHeartbeat.Time()}
		}
	}
}

// checkLeaseBounds runs after the timers at s.now fired.
func (s *sim) checkLeaseBounds() {
	for _, m := range s.g.Members() {
		if m.State == model.StateExpired {
			continue
		}
		tr := s.tracks[m.ID]
		ttl := simTTL
		if m.InstanceID != "" {
			// A static member away after a temporary leave (sent at hbAt) is held for the
			// session timeout instead of a lease; one still draining then keeps its shards for
			// a lease (from a restore's "now" when no heartbeat came since).
			ttl += s.g.Config().StaticSessionTimeout
		}
		bound := tr.hbAt.Add(ttl + simInterval + time.Duration(tr.crashes)*simTTL + tr.gaps)
		if !s.now.Before(bound) {
			s.fail("%s (%s) still not expired %s after its last accepted heartbeat (%d crash moves, %s hand-over time since)",
				m.ID, m.State, s.now.Sub(tr.hbAt), tr.crashes, tr.gaps)
		}
	}
}

// checkExpiryNotEarly: an expiry at s.now comes a full TTL after the last accepted heartbeat.
// An away static member expires at its session deadline, not before.
func (s *sim) checkExpiryNotEarly(before model.Member) {
	id := before.ID
	if before.Away() {
		if s.now.Before(before.SessionDeadline()) {
			s.fail("%s expired %s before its session deadline", id, before.SessionDeadline().Sub(s.now))
		}
		return
	}
	if tr := s.tracks[id]; tr != nil && s.now.Before(tr.hbAt.Add(simTTL)) {
		s.fail("%s expired %s after its last accepted heartbeat, before a full lease", id, s.now.Sub(tr.hbAt))
	}
}
