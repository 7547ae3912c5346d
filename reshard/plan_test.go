package reshard

import (
	"errors"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// drive runs every step of the active migration as a driver would, marking
// retire steps' shards retired and waiting out grace steps, and returns the
// states passed through. A grace step must not be over before the grace
// since the stream's last routing change, and must be over at its end.
func drive(t *testing.T, r *Record, grace time.Duration) []string {
	t.Helper()
	now := t0
	if last := r.Layout.LastRoutingChange(); last.After(now) {
		now = last
	}
	var states []string
	for r.Layout.Active != nil {
		m := r.Layout.Active
		if len(states) == 0 || states[len(states)-1] != m.State {
			states = append(states, m.State)
		}
		st, _ := m.Current()
		now = now.Add(time.Millisecond)
		switch st.Kind {
		case KindGrace:
			until := r.Layout.LastRoutingChange().Add(grace)
			if now.Before(until) {
				if r.Layout.GraceOver(grace, now) {
					t.Fatalf("grace over at %v, before %v", now, until)
				}
				now = until
			}
			if !r.Layout.GraceOver(grace, now) {
				t.Fatalf("grace not over at %v (last routing change %v, grace %v)", now, r.Layout.LastRoutingChange(), grace)
			}
		case KindRetire:
			if err := r.Complete(m.ID, m.Next, "n1", now); err == nil {
				t.Fatalf("retire step completed before its shards retired")
			}
			for _, i := range st.Shards {
				r.Retired(m.ID, i, RetiredKey("s:x", m.ID), now)
			}
		}
		if err := r.Complete(m.ID, m.Next, "n1", now); err != nil {
			t.Fatalf("complete %s: %v", st.Kind, err)
		}
	}
	return append(states, r.Layout.History[0].State)
}

func eq(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestScaleOutThenIn(t *testing.T) {
	r := &Record{Routing: 4, MetadataVersion: 1, Keep: 2}
	m, err := r.Start(8, "ops", "load", "n1", t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.ShardsIn(ChangeAdd); len(got) != 4 || got[0] != 4 || got[3] != 7 {
		t.Fatalf("added shards %v", got)
	}
	if _, err := r.Start(3, "ops", "", "n1", t0); !errors.Is(err, ErrActive) {
		t.Fatalf("second start: %v", err)
	}
	states := drive(t, r, 5*time.Second)
	if want := []string{StatePreparing, StateActive, StateDeprecated}; !eq(states, want) {
		t.Fatalf("states %v, want %v", states, want)
	}
	if r.Routing != 8 || r.Layout.ConsumeCount(r.Routing) != 8 || r.MetadataVersion != 2 {
		t.Fatalf("after scale-out: routing %d consume %d mv %d", r.Routing, r.Layout.Consume, r.MetadataVersion)
	}
	if _, err := r.Start(8, "ops", "", "n1", t0); !errors.Is(err, ErrSameCount) {
		t.Fatalf("same count: %v", err)
	}
	m, err = r.Start(3, "ops", "", "n1", t0)
	if err != nil {
		t.Fatal(err)
	}
	// The first switch takes the removed shards out of routing but keeps them consumed.
	if err := r.Complete(m.ID, 0, "n1", t0); err != nil {
		t.Fatal(err)
	}
	if r.Routing != 3 || r.Layout.ConsumeCount(3) != 8 || r.MetadataVersion != 3 {
		t.Fatalf("scale-in switch: routing %d consume %d mv %d", r.Routing, r.Layout.Consume, r.MetadataVersion)
	}
	states = drive(t, r, time.Second)
	if want := []string{StateActive, StateDraining, StateDeprecated}; !eq(states, want) {
		t.Fatalf("states %v, want %v", states, want)
	}
	if r.Routing != 3 || r.Layout.ConsumeCount(3) != 3 || r.MetadataVersion != 4 {
		t.Fatalf("after scale-in: routing %d consume %d mv %d", r.Routing, r.Layout.Consume, r.MetadataVersion)
	}
	if len(r.Layout.History) != 2 || r.Layout.History[0].ID != "rs-2" {
		t.Fatalf("history %+v", r.Layout.History)
	}
	if _, err := r.Rollback("rs-1", "ops", "", "n1", t0); !errors.Is(err, ErrRollbackNotAllowed) {
		t.Fatalf("rollback of a finished migration: %v", err)
	}
	if _, err := r.Rollback("rs-9", "ops", "", "n1", t0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("rollback of an unknown migration: %v", err)
	}
	// The history is bounded.
	r.Start(5, "ops", "", "n1", t0)
	drive(t, r, time.Second)
	if len(r.Layout.History) != 2 || r.Layout.History[0].ID != "rs-3" {
		t.Fatalf("bounded history %+v", r.Layout.History)
	}
}

func TestRollbackScaleOutAfterSwitch(t *testing.T) {
	r := &Record{Routing: 3, MetadataVersion: 7, Keep: 5}
	m, _ := r.Start(6, "ops", "", "n1", t0)
	r.Complete(m.ID, 0, "n1", t0) // provisioned
	r.Complete(m.ID, 1, "n1", t0) // switched
	if _, err := r.Rollback(m.ID, "sre", "bad idea", "n2", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Rollback(m.ID, "sre", "", "n2", t0); !errors.Is(err, ErrRollbackNotAllowed) {
		t.Fatalf("second rollback: %v", err)
	}
	states := drive(t, r, time.Second)
	if want := []string{StateRollingBack, StateRolledBack}; !eq(states, want) {
		t.Fatalf("states %v", states)
	}
	if r.Routing != 3 || r.Layout.ConsumeCount(3) != 3 || r.MetadataVersion != 10 {
		t.Fatalf("after rollback: routing %d consume %d mv %d", r.Routing, r.Layout.Consume, r.MetadataVersion)
	}
	got := r.Layout.History[0]
	if got.RollbackBy != "sre" || got.RollbackReason != "bad idea" {
		t.Fatalf("rollback who/why lost: %+v", got)
	}
}

func TestRollbackBeforeSwitchChangesNoRouting(t *testing.T) {
	for _, target := range []int{6, 1} {
		r := &Record{Routing: 3, MetadataVersion: 2, Keep: 5}
		m, _ := r.Start(target, "ops", "", "n1", t0)
		if _, err := r.Rollback(m.ID, "ops", "", "n1", t0); err != nil {
			t.Fatal(err)
		}
		drive(t, r, time.Second)
		wantMV := int64(2)
		if target > 3 {
			wantMV = 4 // the added shards were consumed until drained (two switches of the consumed count)
		}
		if r.Routing != 3 || r.MetadataVersion != wantMV || r.Layout.ConsumeCount(3) != 3 {
			t.Fatalf("target %d: routing %d mv %d consume %d", target, r.Routing, r.MetadataVersion, r.Layout.Consume)
		}
	}
}

func TestRollbackScaleInRestoresRetiredShards(t *testing.T) {
	r := &Record{Routing: 5, MetadataVersion: 1, Keep: 5}
	m, _ := r.Start(2, "ops", "", "n1", t0)
	for m.Steps[m.Next].Kind != KindRetire {
		r.Complete(m.ID, m.Next, "n1", t0)
	}
	r.Retired(m.ID, 3, "k", t0)
	if _, err := r.Rollback(m.ID, "ops", "", "n1", t0); err != nil {
		t.Fatal(err)
	}
	st, _ := r.Layout.Active.Current()
	if st.Kind != KindProvision || len(st.Shards) != 3 {
		t.Fatalf("rollback of a scale-in starts with %+v", st)
	}
	drive(t, r, time.Second)
	if r.Routing != 5 || r.Layout.ConsumeCount(5) != 5 {
		t.Fatalf("routing %d consume %d", r.Routing, r.Layout.Consume)
	}
}

func TestStaleStep(t *testing.T) {
	r := &Record{Routing: 2, MetadataVersion: 1}
	m, _ := r.Start(4, "ops", "", "n1", t0)
	if err := r.Complete(m.ID, 1, "n1", t0); !errors.Is(err, ErrStaleStep) {
		t.Fatalf("complete of a later step: %v", err)
	}
	if err := r.Complete("rs-0", 0, "n1", t0); !errors.Is(err, ErrStaleStep) {
		t.Fatalf("complete of another migration: %v", err)
	}
}

func TestLayoutRoundTrip(t *testing.T) {
	l, err := Decode(nil)
	if err != nil || l.ConsumeCount(4) != 4 {
		t.Fatalf("empty layout: %v %d", err, l.ConsumeCount(4))
	}
	r := &Record{Routing: 4, MetadataVersion: 1}
	r.Start(0, "ops", "", "n", t0)
	r.Complete("rs-1", 0, "n", t0)
	back, err := Decode(r.Layout.Encode())
	if err != nil || back.ConsumeCount(0) != 4 || back.Active == nil || back.Active.MetadataVersion != 2 {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	if _, err := Decode([]byte("{")); err == nil {
		t.Fatal("bad layout decoded")
	}
	if RetiredKey("orders:3", "rs-2") != "{orders:3}:retired:rs-2" {
		t.Fatal(RetiredKey("orders:3", "rs-2"))
	}
}
