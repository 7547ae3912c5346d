package groupstate

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/answer"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// checkSteadyAgrees evaluates hb again through the general path whenever the steady short cut
// applies, and fails t if the two Decisions differ in anything the shell or a member can see.
// The fuzz target, the harness and the simulations call it for every heartbeat they send.
func checkSteadyAgrees(t testing.TB, g *Group, hb model.Heartbeat, now time.Time, got Decision) {
	t.Helper()
	if hb.ProtocolVersion != 1 || hb.MemberEpoch <= 0 {
		return
	}
	r, msg := answer.Validate(&hb)
	m := g.members[hb.MemberID]
	if msg != "" || m == nil || m.State != model.StateActive || hb.MemberEpoch != m.Epoch {
		return
	}
	if _, bad := shardset.FirstMissing(r.Held, m.Assigned, m.Revoking); bad || !g.steady(&hb, m, now) {
		return
	}
	want := g.accepted(&hb, r, m, false, now)
	if a, b := describeDecision(want), describeDecision(got); a != b {
		t.Fatalf("steady heartbeat of %s: the short cut disagrees with the general path\ngeneral: %s\nsteady:  %s", hb.MemberID, a, b)
	}
}

// describeDecision renders what a Decision means (nil and empty sets alike).
func describeDecision(d Decision) string {
	r := d.Response
	s := fmt.Sprintf("%s member=%s epoch=%d ge=%d ae=%d mv=%d assigned=%v pending=%v interval=%s msg=%q limit=%q inuse=%v",
		r.Status, r.MemberID, r.MemberEpoch, r.GroupEpoch, r.AssignmentEpoch, r.MetadataVersion,
		slices.Clip(r.Assigned), slices.Clip(r.Pending), r.HeartbeatInterval, r.Message, r.Limit, r.IDInUse)
	c := d.Change
	if c == nil {
		return s + " change=nil"
	}
	s += fmt.Sprintf(" durable=%v meta=%v removed=%v trimmed=%d bucket=%v fences=%v", c.Durable, c.Meta, c.Removed, c.Trimmed, c.bucket, c.FenceMoves())
	for _, m := range c.Members {
		s += fmt.Sprintf(" {%s %q %s e=%d pe=%d cap=%v t=%v a=%v r=%v p=%v j=%s ss=%s principal=%q inc=%q inst=%q tr=%q sd=%s hb=%d lease=%d rd=%d}",
			m.ID, m.Name, m.State, m.Epoch, m.PrevEpoch, m.Capacity, nz(m.Target), nz(m.Assigned), nz(m.Revoking), nz(m.Pending),
			m.JoinedAt, m.StateSince, m.Principal, m.Incarnation, m.InstanceID, m.Transport, m.SessionDeadline(), m.LastHeartbeat, m.LeaseDeadline, m.RevokeDeadline)
	}
	return s
}

func nz(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestSteadyHeartbeatShortCut checks that a settled member's heartbeat takes the short cut and
// that everything else does not: a pending recompute, a name change, a newer metadataVersion
// reported, shards still pending, a grant hold.
func TestSteadyHeartbeatShortCut(t *testing.T) {
	h := newHarness(t, 4)
	h.join("a")
	h.join("b")
	h.rounds(3)
	a, _ := h.g.Member("a")
	if len(a.Pending)+len(a.Revoking) > 0 || len(a.Assigned) != 2 {
		t.Fatalf("not settled: %+v", a)
	}
	hb := hbFor("a", a.Epoch, a.Assigned)
	m := h.g.members["a"]
	if !h.g.steady(&hb, m, h.now) {
		t.Fatal("a settled member's heartbeat is not steady")
	}
	d := h.g.Heartbeat(hb, h.now)
	checkSteadyAgrees(t, h.g, hb, h.now, d)
	if d.Change == nil || d.Change.Durable || len(d.Change.Members) != 1 {
		t.Fatalf("steady change: %+v", d.Change)
	}
	before := h.g.members["a"]
	h.g.Apply(d.Change)
	if h.g.members["a"] != before || !before.LastHeartbeat.Equal(h.now) {
		t.Fatal("a steady change is not applied in place")
	}

	renamed := hb
	renamed.MemberName = "other"
	ahead := hb
	ahead.MetadataVersion = h.g.meta.MetadataVersion + 1
	for name, x := range map[string]model.Heartbeat{"renamed": renamed, "metadata ahead": ahead} {
		if h.g.steady(&x, m, h.now) {
			t.Errorf("%s: taken as steady", name)
		}
		checkSteadyAgrees(t, h.g, x, h.now, h.g.Heartbeat(x, h.now))
	}
	h.g.HoldGrantsUntil(h.now.Add(time.Minute))
	if h.g.steady(&hb, m, h.now) {
		t.Error("steady during a grant hold")
	}
	h.g.holdUntil = time.Time{}
	h.join("c")
	h.now = h.now.Add(time.Millisecond)
	c := h.member("c")
	h.send(hbFor("c", c.Epoch, nil)) // confirmed: a's target shrinks, one shard to revoke
	m = h.g.members["a"]
	if h.g.steady(&hb, m, h.now) {
		t.Errorf("steady although its target moved: %+v", *m)
	}
}
