package groupstate

import (
	"math/rand"
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// moveTo restores the harness's group at now as the next activation would: from the durable
// records, with the hand-over of a graceful release at releasedAt, or with fresh leases
// (handed nil: crash).
func (h *harness) moveTo(releasedAt, now time.Time, handed map[string]Lease) {
	h.tb.Helper()
	var (
		g   *Group
		err error
	)
	if handed == nil {
		g, err = Restore(h.g.Config(), h.g.Meta(), h.g.Members(), now)
	} else {
		g, err = RestoreHandedOver(h.g.Config(), h.g.Meta(), h.g.Members(), handed, releasedAt, now)
	}
	if err != nil {
		h.tb.Fatal(err)
	}
	h.g, h.now = g, now
	h.check()
}

// fire applies every member timer due at h.now, as the shell's timers would.
func (h *harness) fire() {
	h.tb.Helper()
	for _, m := range h.g.Members() {
		if d, ok := h.g.NextDeadline(m.ID); ok && !h.now.Before(d) {
			h.apply(h.g.Expire(m.ID, h.now))
		}
	}
	if c := h.g.Tick(h.now); c != nil {
		h.tb.Fatalf("Tick found timers NextDeadline missed: %s", fmtChange(c))
	}
}

// expiredAt runs the harness in 100 ms steps until end: B heartbeats every interval, A is
// dead since lastA; the activation moves every `every` (graceful: hand-over; else fresh
// leases). It returns when A expired (zero if it never did) and fails if B ever expires.
func expiredAt(t *testing.T, every time.Duration, graceful bool, end time.Time) (time.Time, time.Time) {
	h := stable2(t)
	lastA := h.now
	nextMove, nextB := h.now.Add(every), h.now.Add(testCfg.HeartbeatInterval)
	var expired time.Time
	for h.now.Before(end) {
		h.now = h.now.Add(100 * time.Millisecond)
		if !h.now.Before(nextMove) {
			var handed map[string]Lease
			if graceful {
				handed = h.g.HandOver()
			}
			h.moveTo(h.now, h.now, handed)
			nextMove = h.now.Add(every)
		}
		h.fire()
		if !h.now.Before(nextB) {
			b := h.member("B")
			if r := h.send(hbFor("B", b.Epoch, b.Assigned)); r.Status != model.StatusOK {
				t.Fatalf("B: %s", fmtResp(r))
			}
			nextB = h.now.Add(testCfg.HeartbeatInterval)
		}
		if h.member("B").State == model.StateExpired {
			t.Fatalf("live B expired at +%s", h.now.Sub(t0))
		}
		if a := h.member("A"); a.State == model.StateExpired && expired.IsZero() {
			expired = h.now
		}
	}
	return lastA, expired
}

// The failure mode: with fresh leases on every activation, a dead member never expires while
// the activation moves more often than once per lease TTL.
func TestFreshLeasesOnEveryMoveNeverExpireADeadMember(t *testing.T) {
	_, expired := expiredAt(t, testCfg.LeaseTTL/3, false, t0.Add(time.Minute))
	if !expired.IsZero() {
		t.Fatalf("expected the dead member to be kept alive by fresh leases; it expired at +%s", expired.Sub(t0))
	}
}

// With the hand-over, the dead member expires within TTL + one heartbeat interval of its last
// heartbeat however often the activation moves, and the live one never does.
func TestHandedOverLeasesExpireADeadMemberWhateverTheMoves(t *testing.T) {
	for _, every := range []time.Duration{300 * time.Millisecond, time.Second, testCfg.LeaseTTL / 3, testCfg.LeaseTTL - 200*time.Millisecond} {
		lastA, expired := expiredAt(t, every, true, t0.Add(time.Minute))
		if expired.IsZero() {
			t.Fatalf("moves every %s: the dead member never expired", every)
		}
		if expired.Before(lastA.Add(testCfg.LeaseTTL)) || expired.After(lastA.Add(testCfg.LeaseTTL+testCfg.HeartbeatInterval)) {
			t.Fatalf("moves every %s: expired %s after its last heartbeat, want within [TTL, TTL+interval]", every, expired.Sub(lastA))
		}
	}
}

// A deadline that falls due just after the restore gets the grace: not due before one
// heartbeat interval after the restore, never more than one interval after itself.
func TestHandOverGrace(t *testing.T) {
	ttl, iv := testCfg.LeaseTTL, testCfg.HeartbeatInterval
	for _, tc := range []struct {
		name    string
		restore time.Duration // after A's last heartbeat (its deadline is at ttl)
		due     time.Duration
	}{
		{"far", ttl - 2*iv, ttl},
		{"near", ttl - iv/2, ttl - iv/2 + iv},
		{"just passed", ttl + iv/2, ttl + iv},
		{"long passed", ttl + 2*iv, ttl + iv},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := stable2(t)
			last := h.now
			at := last.Add(tc.restore) // released and restored at once
			h.moveTo(at, at, h.g.HandOver())
			if d, ok := h.g.NextDeadline("A"); !ok || !d.Equal(last.Add(tc.due)) {
				t.Fatalf("A due at +%s, want +%s", d.Sub(last), tc.due)
			}
			if a := h.member("A"); !a.LeaseDeadline.Equal(last.Add(ttl)) || !a.LastHeartbeat.Equal(last) {
				t.Fatalf("the lease itself is kept as handed over: %+v", a)
			}
		})
	}
	// A heartbeat within the grace renews the lease as usual.
	h := stable2(t)
	at := h.now.Add(ttl - iv/2)
	h.moveTo(at, at, h.g.HandOver())
	h.now = h.now.Add(iv - time.Millisecond)
	h.fire()
	a := h.member("A")
	if r := h.send(hbFor("A", a.Epoch, a.Assigned)); r.Status != model.StatusOK {
		t.Fatalf("heartbeat in the grace: %s", fmtResp(r))
	}
	if d, _ := h.g.NextDeadline("A"); !d.Equal(h.now.Add(ttl)) {
		t.Fatalf("renewed lease due at %s", d.Sub(h.now))
	}
}

// Repeated quick moves do not stack the grace: the deadline handed over is the lease itself.
func TestHandOverGraceDoesNotStack(t *testing.T) {
	h := stable2(t)
	last := h.now
	var paused time.Duration // time nobody answered for the group: leases stand still then
	for h.now = last.Add(testCfg.LeaseTTL - time.Second); h.member("A").State != model.StateExpired; {
		h.moveTo(h.now, h.now.Add(200*time.Millisecond), h.g.HandOver())
		paused += 200 * time.Millisecond
		h.fire()
		if h.now.After(last.Add(testCfg.LeaseTTL + testCfg.HeartbeatInterval + paused)) {
			t.Fatalf("A still not expired at +%s (paused %s)", h.now.Sub(last), paused)
		}
		h.now = h.now.Add(100 * time.Millisecond) // served between moves
		h.fire()
	}
}

// A lease granted by a restore after a crash (no heartbeat since) is handed over without grace:
// each crash extends a dead member's life by one TTL at most.
func TestHandOverCrashLeaseGetsNoGrace(t *testing.T) {
	h := stable2(t)
	crash := h.now.Add(10 * time.Second)
	h.moveTo(crash, crash, nil)
	if a := h.member("A"); !a.LastHeartbeat.IsZero() {
		t.Fatalf("a restore after a crash knows no heartbeat: %+v", a)
	}
	at := crash.Add(testCfg.LeaseTTL - 100*time.Millisecond)
	h.moveTo(at, at, h.g.HandOver())
	if d, _ := h.g.NextDeadline("A"); !d.Equal(crash.Add(testCfg.LeaseTTL)) {
		t.Fatalf("A due %s after the crash restore, want the TTL", d.Sub(crash))
	}
}

// Handed-over timers are never longer than a fresh restore would grant (a clock running ahead
// on the releasing node); unknown members get fresh ones; EXPIRED members are not handed over.
func TestHandOverBounds(t *testing.T) {
	h := stable2(t)
	h.now = h.now.Add(testCfg.LeaseTTL)
	h.fire() // both expire
	h.join("C")
	handed := h.g.HandOver()
	if _, ok := handed["A"]; ok || len(handed) != 1 {
		t.Fatalf("hand-over %v: only C holds a lease", handed)
	}
	handed["C"] = Lease{LastHeartbeat: h.now, Deadline: h.now.Add(time.Hour)}
	h.moveTo(h.now, h.now, handed)
	if c := h.member("C"); !c.LeaseDeadline.Equal(h.now.Add(testCfg.LeaseTTL)) {
		t.Fatalf("C lease %s, want capped at a fresh one", c.LeaseDeadline.Sub(h.now))
	}
	h.moveTo(h.now, h.now.Add(time.Second), map[string]Lease{})
	if c := h.member("C"); !c.LeaseDeadline.Equal(h.now.Add(testCfg.LeaseTTL)) || !c.LastHeartbeat.IsZero() {
		t.Fatalf("a member missing from the hand-over gets a fresh lease: %+v", c)
	}
}

// A member that never finishes its revocation is fenced at its original revoke deadline
// (within the grace) however often the activation moves meanwhile.
func TestHandOverKeepsTheRevokeDeadline(t *testing.T) {
	h := newHarness(t, 4)
	h.join("A")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.join("B")
	h.send(hbFor("B", 2, nil))
	h.send(hbFor("A", 1, []int{0, 1, 2, 3})) // told to revoke 2,3 at t0
	revokeBy := h.member("A").RevokeDeadline
	if !revokeBy.Equal(t0.Add(testCfg.RebalanceTimeout)) {
		t.Fatalf("revoke deadline %s", revokeBy.Sub(t0))
	}
	for h.member("A").State != model.StateFenced {
		h.now = h.now.Add(time.Second)
		if h.now.Sub(t0)%(5*time.Second) == 0 {
			h.moveTo(h.now, h.now, h.g.HandOver())
		}
		h.fire()
		if h.member("A").State == model.StateFenced {
			break
		}
		h.send(hbFor("A", 1, []int{0, 1, 2, 3})) // alive, never releases
		h.send(hbFor("B", 2, nil))
		if h.now.After(revokeBy.Time().Add(testCfg.HeartbeatInterval)) {
			t.Fatalf("A still not fenced at +%s", h.now.Sub(t0))
		}
	}
	if h.now.Before(revokeBy.Time()) {
		t.Fatalf("A fenced %s before its revoke deadline", revokeBy.Sub(h.now))
	}
}

// Randomized: graceful moves at random moments with random hand-over gaps (heartbeats refused
// meanwhile) shorter than TTL − 2 intervals, the group answering for at least one interval
// between moves, never expire a member that heartbeats every interval, and a dead member
// expires within TTL + interval + the gap in progress.
func TestHandOverRandomMoves(t *testing.T) {
	t.Parallel() // heavy, shares nothing: beside the other heavy tests
	ttl, iv := testCfg.LeaseTTL, testCfg.HeartbeatInterval
	for seed := int64(1); seed <= int64(simSeeds(t, 200, 200)); seed++ {
		rng := rand.New(rand.NewSource(seed))
		h := stable2(t)
		lastA := h.now
		nextB, nextMove := h.now.Add(iv), h.now.Add(time.Duration(rng.Int63n(int64(ttl))))
		var downUntil, releasedAt time.Time
		var handed map[string]Lease
		var maxGap, paused time.Duration // paused: time nobody answered since A's last heartbeat
		for h.now.Before(t0.Add(2 * time.Minute)) {
			h.now = h.now.Add(100 * time.Millisecond)
			down := h.now.Before(downUntil)
			if !down && handed != nil {
				paused += h.now.Sub(releasedAt) // the whole hand-over, to the step it ends at
				h.moveTo(releasedAt, h.now, handed)
				handed = nil
			}
			if !down && !h.now.Before(nextMove) {
				gap := time.Duration(rng.Int63n(int64(ttl - 2*iv)))
				maxGap = max(maxGap, gap)
				handed, releasedAt, downUntil = h.g.HandOver(), h.now, h.now.Add(gap)
				// The group answers for at least one interval between moves: a member whose
				// heartbeats are refused for longer than its lease is expired like a dead one.
				nextMove = downUntil.Add(iv + 100*time.Millisecond + time.Duration(rng.Int63n(int64(ttl/2))))
				continue
			}
			if down {
				if !h.now.Before(nextB) {
					nextB = h.now.Add(iv) // refused (RETRY): B tries again within an interval
				}
				continue // nobody answers, no timer runs
			}
			h.fire()
			if !h.now.Before(nextB) {
				b := h.member("B")
				if b.State != model.StateActive {
					t.Fatalf("seed %d: live B is %s at +%s", seed, b.State, h.now.Sub(t0))
				}
				h.send(hbFor("B", b.Epoch, b.Assigned))
				nextB = h.now.Add(iv)
			}
			if a := h.member("A"); a.State != model.StateExpired && !h.now.Before(lastA.Add(ttl+iv+paused)) {
				t.Fatalf("seed %d: dead A not expired at +%s (paused %s in all, max gap %s)", seed, h.now.Sub(lastA), paused, maxGap)
			}
		}
		if h.member("A").State != model.StateExpired {
			t.Fatalf("seed %d: dead A never expired", seed)
		}
	}
}

// A move slower than SlowMove (TTL − interval) is crash-like: fresh leases, so that members
// whose heartbeats nobody could answer meanwhile are not expired by the move alone.
func TestSlowMoveGivesFreshLeases(t *testing.T) {
	for _, tc := range []struct {
		gap   time.Duration
		fresh bool
	}{{SlowMove(testCfg), false}, {SlowMove(testCfg) + time.Millisecond, true}, {time.Hour, true}} {
		h := stable2(t)
		handed, released := h.g.HandOver(), h.now
		// A's lease has a second less left than a fresh one: kept (moved on by the gap) after
		// a quick move, fresh after a slow one.
		handed["A"] = Lease{LastHeartbeat: released.Add(-time.Second), Deadline: released.Add(testCfg.LeaseTTL - time.Second)}
		h.moveTo(released, released.Add(tc.gap), handed)
		want := released.Add(testCfg.LeaseTTL - time.Second).Add(tc.gap)
		if tc.fresh {
			want = h.now.Add(testCfg.LeaseTTL)
		}
		if a := h.member("A"); !a.LeaseDeadline.Equal(want) {
			t.Fatalf("hand-over after %s: lease %s after the release, want %s", tc.gap, a.LeaseDeadline.Sub(released), want.Sub(released))
		}
	}
}
