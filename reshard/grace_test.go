package reshard

import (
	"strings"
	"testing"
	"time"
)

// kinds lists the kinds of the steps from the current one on.
func kinds(m *Migration) string {
	var out []string
	for _, st := range m.Steps[m.Next:] {
		out = append(out, st.Kind)
	}
	return strings.Join(out, " ")
}

// The plan of every kind of migration: the grace comes only right before a
// retire step, so a scale-out (which retires nothing) never waits it.
func TestStepPlans(t *testing.T) {
	cases := []struct {
		name     string
		from, to int
		done     int // steps completed before the rollback (-1: no rollback)
		want     string
	}{
		{"scale-out", 4, 8, -1, "provision switch resize finish"},
		{"scale-in", 8, 4, -1, "switch resize grace retire switch resize fences finish"},
		{"scale-out rolled back before provisioning", 4, 8, 0, "switch resize grace retire switch resize fences finish"},
		{"scale-out rolled back before the switch", 4, 8, 1, "switch resize grace retire switch resize fences finish"},
		{"scale-out rolled back after the switch", 4, 8, 2, "switch resize grace retire switch resize fences finish"},
		{"scale-in rolled back before the switch", 8, 4, 0, "finish"},
		{"scale-in rolled back after the switch", 8, 4, 1, "provision switch resize finish"},
		{"scale-in rolled back while draining", 8, 4, 3, "provision switch resize finish"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &Record{Routing: tc.from, MetadataVersion: 1, Keep: 3}
			m, err := r.Start(tc.to, "ops", "", "n1", t0)
			if err != nil {
				t.Fatal(err)
			}
			if tc.done >= 0 {
				for range tc.done {
					if err := r.Complete(m.ID, m.Next, "n1", t0); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := r.Rollback(m.ID, "ops", "", "n1", t0); err != nil {
					t.Fatal(err)
				}
			}
			got := "finish" // a finish step that becomes current completes at once
			if r.Layout.Active != nil {
				got = kinds(r.Layout.Active)
			}
			if got != tc.want {
				t.Fatalf("steps %q, want %q", got, tc.want)
			}
		})
	}
}

// A scale-out ends as soon as its steps ran, without the grace; a scale-in
// requested right after is accepted and retires only once the grace since
// the last routing change (its own switch) is over.
func TestScaleInRightAfterScaleOut(t *testing.T) {
	const grace = time.Minute
	r := &Record{Routing: 4, MetadataVersion: 1, Keep: 5}
	out, _ := r.Start(8, "ops", "", "n1", t0)
	now := t0
	for r.Layout.Active != nil {
		now = now.Add(time.Second)
		if err := r.Complete(out.ID, r.Layout.Active.Next, "n1", now); err != nil {
			t.Fatal(err)
		}
	}
	if h := r.Layout.History[0]; h.State != StateDeprecated || h.UpdatedAt.Sub(t0) > 5*time.Second {
		t.Fatalf("scale-out ended %s after %v", h.State, h.UpdatedAt.Sub(t0))
	}
	if got := r.Layout.LastRoutingChange(); !got.Equal(t0.Add(2 * time.Second)) {
		t.Fatalf("last routing change %v, want the scale-out's switch at %v", got, t0.Add(2*time.Second))
	}
	now = now.Add(time.Second)
	in, err := r.Start(4, "ops", "", "n1", now)
	if err != nil {
		t.Fatalf("scale-in right after a scale-out: %v", err)
	}
	switchAt := now.Add(time.Second)
	for _, at := range []time.Time{switchAt, switchAt} { // switch, resize
		if err := r.Complete(in.ID, r.Layout.Active.Next, "n1", at); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := r.Layout.Active.Current(); st.Kind != KindGrace {
		t.Fatalf("after switch and resize: %s", st.Kind)
	}
	if !r.Layout.LastRoutingChange().Equal(switchAt) || !r.Layout.GraceUntil(grace).Equal(switchAt.Add(grace)) {
		t.Fatalf("grace until %v, want %v", r.Layout.GraceUntil(grace), switchAt.Add(grace))
	}
	if r.Layout.GraceOver(grace, switchAt.Add(grace-time.Millisecond)) {
		t.Fatal("grace over before a grace since the scale-in's switch")
	}
	if !r.Layout.GraceOver(grace, switchAt.Add(grace)) {
		t.Fatal("grace not over a grace after the scale-in's switch")
	}
}

// A scale-out rolled back before its switch changed no routing itself: its
// added shards are retired after the grace since the stream's last routing
// change, which an earlier migration made.
func TestGraceCountsFromTheStreamsLastRoutingChange(t *testing.T) {
	const grace = time.Minute
	r := &Record{Routing: 8, MetadataVersion: 1, Keep: 5}
	in, _ := r.Start(4, "ops", "", "n1", t0)
	for r.Layout.Active != nil {
		st, _ := r.Layout.Active.Current()
		at := t0 // the first switch; every later step a grace after it
		if r.Routing != 8 {
			at = t0.Add(grace)
		}
		if st.Kind == KindRetire {
			for _, i := range st.Shards {
				r.Retired(in.ID, i, "k", at)
			}
		}
		if err := r.Complete(in.ID, r.Layout.Active.Next, "n1", at); err != nil {
			t.Fatal(err)
		}
	}
	if !r.Layout.LastRoutingChange().Equal(t0) {
		t.Fatalf("last routing change %v, want the scale-in's switch %v", r.Layout.LastRoutingChange(), t0)
	}
	// Right after: a scale-out, rolled back after provisioning, before its switch.
	now := t0.Add(grace + time.Second)
	out, _ := r.Start(8, "ops", "", "n1", now)
	r.Complete(out.ID, 0, "n1", now)
	r.Rollback(out.ID, "ops", "", "n1", now)
	for st, _ := r.Layout.Active.Current(); st.Kind != KindGrace; st, _ = r.Layout.Active.Current() {
		r.Complete(out.ID, r.Layout.Active.Next, "n1", now)
	}
	if r.Routing != 4 || !r.Layout.LastRoutingChange().Equal(t0) {
		t.Fatalf("the rollback's switch changed routing: %d shards, last change %v", r.Routing, r.Layout.LastRoutingChange())
	}
	if !r.Layout.GraceOver(grace, now) {
		t.Fatalf("grace not over %v after the last routing change", now.Sub(t0))
	}

	// A record written before RoutingChangedAt existed: the latest switch of its migrations.
	old := Layout{History: []Migration{{SwitchedAt: t0.Add(time.Second)}, {SwitchedAt: t0}}}
	if !old.LastRoutingChange().Equal(t0.Add(time.Second)) {
		t.Fatalf("fallback %v", old.LastRoutingChange())
	}
	if (Layout{}).GraceOver(grace, t0) != true {
		t.Fatal("a stream whose routing never changed waits a grace")
	}
	back, err := Decode(r.Layout.Encode())
	if err != nil || !back.RoutingChangedAt.Equal(t0) {
		t.Fatalf("routingChangedAt does not round-trip: %v %v", back.RoutingChangedAt, err)
	}
}
