package groupstate

import (
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

func TestShortIntervalBounds(t *testing.T) {
	cases := []struct{ interval, want time.Duration }{
		{3 * time.Second, 300 * time.Millisecond},
		{200 * time.Millisecond, minShortInterval},
		{30 * time.Millisecond, 30 * time.Millisecond}, // never longer than the interval itself
		{0, 0},
	}
	for _, c := range cases {
		if got := ShortInterval(model.Config{HeartbeatInterval: c.interval}); got != c.want {
			t.Errorf("ShortInterval(%s) = %s, want %s", c.interval, got, c.want)
		}
	}
}

func TestIntervalForStatuses(t *testing.T) {
	busy := &model.Member{State: model.StateActive, Epoch: 3, Pending: []int{1}}
	for _, st := range []model.Status{model.StatusRetry, model.StatusFencedMemberEpoch, model.StatusUnknownMemberID, model.StatusInvalidRequest} {
		if got := intervalFor(testCfg, st, busy, false); got != testCfg.HeartbeatInterval {
			t.Errorf("%s: %s, want the configured interval", st, got)
		}
	}
	if got := intervalFor(testCfg, model.StatusOK, &model.Member{State: model.StateLeaving, Epoch: -1}, true); got != testCfg.HeartbeatInterval {
		t.Errorf("a member that left: %s", got)
	}
}

// The interval told to each member through a join, a hand-off and back to steady state.
func TestIntervalHintThroughHandOff(t *testing.T) {
	short, long := ShortInterval(testCfg), testCfg.HeartbeatInterval
	h := newHarness(t, 4)

	r := h.send(hbFor("a", 0, nil))
	if r.HeartbeatInterval != short {
		t.Fatalf("join (STARTING): %s, want %s", r.HeartbeatInterval, short)
	}
	r = h.send(hbFor("a", r.MemberEpoch, r.Assigned))
	if len(r.Assigned) != 4 || r.HeartbeatInterval != long {
		t.Fatalf("confirmed sole owner: assigned %v interval %s, want all 4 and %s", r.Assigned, r.HeartbeatInterval, long)
	}
	aEpoch, aOwned := r.MemberEpoch, r.Assigned

	rb := h.send(hbFor("b", 0, nil))
	if rb.HeartbeatInterval != short {
		t.Fatalf("b joining: %s, want %s", rb.HeartbeatInterval, short)
	}
	rb = h.send(hbFor("b", rb.MemberEpoch, rb.Assigned)) // confirmed: the target moves 2 shards to b
	if len(rb.Pending) != 2 || rb.HeartbeatInterval != short {
		t.Fatalf("b waiting for a's release: pending %v interval %s, want 2 pending and %s", rb.Pending, rb.HeartbeatInterval, short)
	}
	ra := h.send(hbFor("a", aEpoch, aOwned))
	if len(ra.Assigned) != 2 || ra.HeartbeatInterval != short {
		t.Fatalf("a told to revoke: assigned %v interval %s, want 2 and %s", ra.Assigned, ra.HeartbeatInterval, short)
	}
	ra = h.send(hbFor("a", aEpoch, ra.Assigned)) // released
	if ra.HeartbeatInterval != long {
		t.Fatalf("a after its release: %s, want %s", ra.HeartbeatInterval, long)
	}
	rb = h.send(hbFor("b", rb.MemberEpoch, rb.Assigned))
	if len(rb.Assigned) != 2 || len(rb.Pending) != 0 || rb.HeartbeatInterval != long {
		t.Fatalf("b after the hand-off: assigned %v pending %v interval %s, want 2, none, %s", rb.Assigned, rb.Pending, rb.HeartbeatInterval, long)
	}
}

// A member still draining a revocation is told the short interval on every heartbeat until it
// releases; rejected heartbeats carry the configured interval.
func TestIntervalHintWhileDraining(t *testing.T) {
	short, long := ShortInterval(testCfg), testCfg.HeartbeatInterval
	h := newHarness(t, 2)
	ra := h.send(hbFor("a", 0, nil))
	ra = h.send(hbFor("a", ra.MemberEpoch, ra.Assigned))
	rb := h.send(hbFor("b", 0, nil))
	h.send(hbFor("b", rb.MemberEpoch, nil))
	ra = h.send(hbFor("a", ra.MemberEpoch, ra.Assigned))
	revoked := shardset.Diff([]int{0, 1}, ra.Assigned)
	for range 3 {
		h.now = h.now.Add(short)
		r := h.send(hbFor("a", ra.MemberEpoch, ra.Assigned, drain(revoked...)...))
		if r.HeartbeatInterval != short {
			t.Fatalf("draining: %s, want %s", r.HeartbeatInterval, short)
		}
	}
	if r := h.send(hbFor("zzz", 5, nil)); r.Status != model.StatusUnknownMemberID || r.HeartbeatInterval != long {
		t.Fatalf("unknown member: %s %s, want the configured interval", r.Status, r.HeartbeatInterval)
	}
}

// A member silent for its lease TTL minus one interval is overdue: the others are told the
// short interval until it expires or heartbeats again, so they learn of its shards soon after.
func TestOverdueMemberShortensOthersInterval(t *testing.T) {
	short, long := ShortInterval(testCfg), testCfg.HeartbeatInterval
	h := newHarness(t, 4)
	ra := h.send(hbFor("a", 0, nil))
	ra = h.send(hbFor("a", ra.MemberEpoch, ra.Assigned))
	rb := h.send(hbFor("b", 0, nil))
	rb = h.send(hbFor("b", rb.MemberEpoch, nil))
	ra = h.send(hbFor("a", ra.MemberEpoch, ra.Assigned))
	ra = h.send(hbFor("a", ra.MemberEpoch, ra.Assigned)) // released
	rb = h.send(hbFor("b", rb.MemberEpoch, rb.Assigned))
	if len(ra.Assigned) != 2 || len(rb.Assigned) != 2 || rb.HeartbeatInterval != long {
		t.Fatalf("not settled: a %v b %v (%s)", ra.Assigned, rb.Assigned, rb.HeartbeatInterval)
	}
	if _, ok := h.g.OverdueAt("zzz"); ok {
		t.Fatal("OverdueAt of an unknown member")
	}

	// b goes silent; a keeps heartbeating every interval.
	bDeadline := h.now.Add(testCfg.LeaseTTL)
	at, ok := h.g.OverdueAt("b")
	if !ok || !at.Equal(bDeadline.Add(-long)) {
		t.Fatalf("OverdueAt(b) = %v %v, want %v", at, ok, bDeadline.Add(-long))
	}
	for h.now.Add(long).Before(at) {
		h.now = h.now.Add(long)
		ra = h.send(hbFor("a", ra.MemberEpoch, ra.Assigned))
		if h.g.MarkOverdue("b", h.now) || ra.HeartbeatInterval != long {
			t.Fatalf("b overdue too early (%v), or a told %s", h.now.Sub(t0), ra.HeartbeatInterval)
		}
	}
	h.now = at
	if !h.g.MarkOverdue("b", h.now) {
		t.Fatal("b not overdue at OverdueAt")
	}
	if _, ok := h.g.OverdueAt("b"); ok {
		t.Fatal("OverdueAt(b) still set once marked for this lease")
	}
	if ra = h.send(hbFor("a", ra.MemberEpoch, ra.Assigned)); ra.HeartbeatInterval != short {
		t.Fatalf("a while b is overdue: %s, want %s", ra.HeartbeatInterval, short)
	}

	// b expires; a's next heartbeat (a short interval later) gets b's shards.
	h.now = bDeadline
	h.apply(h.g.Expire("b", h.now))
	h.now = h.now.Add(short)
	ra = h.send(hbFor("a", ra.MemberEpoch, ra.Assigned))
	if len(ra.Assigned) != 4 || ra.HeartbeatInterval != long {
		t.Fatalf("a after b expired: %v %s, want all 4 and %s", ra.Assigned, ra.HeartbeatInterval, long)
	}
}

// An overdue member that heartbeats again is no longer overdue.
func TestOverdueClearedByHeartbeat(t *testing.T) {
	long := testCfg.HeartbeatInterval
	h := newHarness(t, 2)
	ra := h.send(hbFor("a", 0, nil))
	ra = h.send(hbFor("a", ra.MemberEpoch, ra.Assigned))
	rb := h.send(hbFor("b", 0, nil))
	rb = h.send(hbFor("b", rb.MemberEpoch, nil))
	ra = h.send(hbFor("a", ra.MemberEpoch, ra.Assigned))
	ra = h.send(hbFor("a", ra.MemberEpoch, ra.Assigned))
	rb = h.send(hbFor("b", rb.MemberEpoch, rb.Assigned))
	at, _ := h.g.OverdueAt("a")
	h.now = at
	if !h.g.MarkOverdue("a", h.now) {
		t.Fatal("a not overdue")
	}
	ra = h.send(hbFor("a", ra.MemberEpoch, ra.Assigned)) // a is back
	if rb = h.send(hbFor("b", rb.MemberEpoch, rb.Assigned)); rb.HeartbeatInterval != long {
		t.Fatalf("b after a came back: %s, want %s", rb.HeartbeatInterval, long)
	}
	if _, ok := h.g.OverdueAt("a"); !ok {
		t.Fatal("a's new lease has no overdue time")
	}
}
