package groupstate

import (
	"fmt"
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// stormStats is what one join storm measured.
type stormStats struct {
	maxUnread   int // most shards no member had Assigned (revoking or free), after any heartbeat
	maxRevoking int // most shards live members were revoking at once
	rounds      int // heartbeat rounds (one heartbeat interval each) until STABLE
}

// joinStorm settles `old` members on a group of `shards` shards, then runs storm.
func joinStorm(tb testing.TB, cfg model.Config, shards, old, joiners, maxRounds int) stormStats {
	tb.Helper()
	h := &harness{tb: tb, g: New(cfg, "orders", "workers", shards, 0), now: t0}
	for i := range old {
		h.join(fmt.Sprintf("a%02d", i))
	}
	settleAll(h, 2*shards)
	st, ok := storm(h, joiners, maxRounds)
	if !ok {
		tb.Fatalf("not STABLE after %d rounds:\n%s", maxRounds, table(h.g))
	}
	return st
}

// storm lets `joiners` members (jNN, numbered on from the members the group knows) join at once and runs heartbeat rounds (every live
// member once per heartbeat interval, in id order, releasing revoked shards at its next
// heartbeat) until the group is STABLE: every live member at the assignment epoch with
// Assigned = Target and nothing revoking. ok is false after maxRounds without STABLE.
func storm(h *harness, joiners, maxRounds int) (st stormStats, ok bool) {
	h.tb.Helper()
	known := len(h.g.Members())
	for i := range joiners {
		h.join(fmt.Sprintf("j%02d", known+i))
	}
	shards := h.g.Meta().ShardCount
	observe := func() {
		unread, revoking := shards, 0
		for _, m := range h.g.Members() {
			if m.State.Holds() {
				unread -= len(m.Assigned)
			}
			if m.State.InTarget() {
				revoking += len(m.Revoking)
			}
		}
		st.maxUnread, st.maxRevoking = max(st.maxUnread, unread), max(st.maxRevoking, revoking)
	}
	observe()
	for st.rounds = 1; st.rounds <= maxRounds; st.rounds++ {
		h.now = h.now.Add(h.g.Config().HeartbeatInterval)
		for _, m := range h.g.Members() {
			if m.State.InTarget() {
				h.send(hbFor(m.ID, m.Epoch, m.Assigned))
				observe()
			}
		}
		if stable(h.g) {
			return st, true
		}
	}
	return st, false
}

// settleAll runs heartbeat rounds until the group is stable, at most n.
func settleAll(h *harness, n int) {
	h.tb.Helper()
	for range n {
		if stable(h.g) {
			return
		}
		h.rounds(1)
	}
	h.tb.Fatalf("did not settle in %d rounds:\n%s", n, table(h.g))
}

// stable: every live member reconciled at the group's assignment epoch, nothing moving.
func stable(g *Group) bool {
	mt := g.Meta()
	if mt.AssignmentEpoch != mt.GroupEpoch {
		return false
	}
	for _, m := range g.Members() {
		if m.State.InTarget() && (m.State != model.StateActive || m.Epoch != mt.AssignmentEpoch ||
			len(m.Revoking) > 0 || len(m.Pending) > 0 || len(m.Assigned) != len(m.Target)) {
			return false
		}
	}
	return true
}

// TestMoveCapJoinStorm is the measurement of docs/BENCHMARKS.md ("Move cap"): 50 members join
// a 1,024-shard group of 10 at once, without a cap and with assignment.max-moves-per-round 64.
// Run with -v for the figures.
func TestMoveCapJoinStorm(t *testing.T) {
	withoutRace(t)
	t.Parallel() // heavy, shares nothing: beside the other heavy tests
	for _, c := range []struct {
		name     string
		perRound int
		fraction float64
	}{{"no cap", 0, 0}, {"cap 64", 64, 0}, {"cap 10%", 0, 0.1}} {
		cfg := testCfg
		cfg.MaxMovesPerRound, cfg.MaxMovesFraction = c.perRound, c.fraction
		st := joinStorm(t, cfg, 1024, 10, 50, 200)
		limit := moveLimit(cfg, 1024)
		t.Logf("%-8s: most shards unread at once %4d, most revoking at once %4d, STABLE after %3d rounds (%s at a %s heartbeat interval)",
			c.name, st.maxUnread, st.maxRevoking, st.rounds, time.Duration(st.rounds)*cfg.HeartbeatInterval, cfg.HeartbeatInterval)
		if limit > 0 && st.maxRevoking > limit {
			t.Errorf("%s: %d shards revoking at once, cap %d", c.name, st.maxRevoking, limit)
		}
		if limit > 0 && st.maxUnread > limit {
			t.Errorf("%s: %d shards unread at once, cap %d", c.name, st.maxUnread, limit)
		}
		if limit == 0 && st.maxUnread < 512 {
			t.Errorf("no cap: only %d shards unread at once; the measurement no longer shows a storm", st.maxUnread)
		}
	}
}

// TestMoveCapNeverHoldsFreeShards: with the budget used up, an expired member's shards still go
// to their new owners at the next heartbeat, and a leaving member's at once.
func TestMoveCapNeverHoldsFreeShards(t *testing.T) {
	cfg := testCfg
	cfg.MaxMovesPerRound = 1
	h := &harness{tb: t, g: New(cfg, "orders", "workers", 12, 0), now: t0}
	h.join("a")
	h.join("b")
	settleAll(h, 50)
	h.join("c")
	h.join("d")
	h.rounds(2) // c and d confirmed: a and b each have shards to give up, only 1 may move
	rev := 0
	for _, m := range h.g.Members() {
		rev += len(m.Revoking)
	}
	if rev != 1 {
		t.Fatalf("%d shards revoking with a cap of 1:\n%s", rev, table(h.g))
	}
	// b dies: its lease runs out; c, d and a keep heartbeating.
	bHeld := h.member("b").Assigned
	for i := 0; i < 6; i++ {
		h.now = h.now.Add(3 * time.Second)
		for _, id := range []string{"a", "c", "d"} {
			m := h.member(id)
			h.send(hbFor(id, m.Epoch, m.Assigned))
		}
	}
	h.apply(h.g.Expire("b", h.now))
	for _, id := range []string{"a", "c", "d"} {
		m := h.member(id)
		h.send(hbFor(id, m.Epoch, m.Assigned))
	}
	for _, s := range bHeld {
		if holder, ok := h.g.Holder(s); !ok {
			t.Errorf("shard %d of expired b not granted at once despite the cap (holder %q)", s, holder)
		}
	}
}

func TestMoveLimit(t *testing.T) {
	for _, c := range []struct {
		n      int
		f      float64
		shards int
		want   int
	}{{0, 0, 1024, 0}, {64, 0, 1024, 64}, {0, 0.1, 1024, 103}, {64, 0.01, 1024, 11}, {5, 0.5, 1024, 5}, {0, 0.001, 10, 1}, {0, 0.5, 0, 0}} {
		if got := moveLimit(model.Config{MaxMovesPerRound: c.n, MaxMovesFraction: c.f}, c.shards); got != c.want {
			t.Errorf("moveLimit(%d, %g, %d shards) = %d, want %d", c.n, c.f, c.shards, got, c.want)
		}
	}
}
