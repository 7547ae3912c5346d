package groupstate

import (
	"testing"
	"time"
)

func TestShortIntervalBounds(t *testing.T) {
	cases := []struct{ interval, want time.Duration }{
		{3 * time.Second, 300 * time.Millisecond},
		{200 * time.Millisecond, MinShortInterval},
		{30 * time.Millisecond, 30 * time.Millisecond}, // never longer than the interval itself
		{0, 0},
	}
	for _, c := range cases {
		if got := ShortInterval(Config{HeartbeatInterval: c.interval}); got != c.want {
			t.Errorf("ShortInterval(%s) = %s, want %s", c.interval, got, c.want)
		}
	}
}

func TestIntervalForStatuses(t *testing.T) {
	busy := &Member{State: StateActive, Epoch: 3, Pending: []int{1}}
	for _, st := range []Status{StatusRetry, StatusFencedMemberEpoch, StatusUnknownMemberID, StatusInvalidRequest} {
		if got := IntervalFor(testCfg, st, busy); got != testCfg.HeartbeatInterval {
			t.Errorf("%s: %s, want the configured interval", st, got)
		}
	}
	if got := IntervalFor(testCfg, StatusOK, &Member{State: StateLeaving, Epoch: -1}); got != testCfg.HeartbeatInterval {
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
	revoked := diff([]int{0, 1}, ra.Assigned)
	for range 3 {
		h.now = h.now.Add(short)
		r := h.send(hbFor("a", ra.MemberEpoch, ra.Assigned, drain(revoked...)...))
		if r.HeartbeatInterval != short {
			t.Fatalf("draining: %s, want %s", r.HeartbeatInterval, short)
		}
	}
	if r := h.send(hbFor("zzz", 5, nil)); r.Status != StatusUnknownMemberID || r.HeartbeatInterval != long {
		t.Fatalf("unknown member: %s %s, want the configured interval", r.Status, r.HeartbeatInterval)
	}
}
