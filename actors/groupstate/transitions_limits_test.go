package groupstate

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

func newHarnessCfg(tb testing.TB, cfg model.Config, shards int) *harness {
	return &harness{tb: tb, g: New(cfg, "orders", "workers", shards, 0), now: t0}
}

// refused checks that a join was refused by the named limit and changed nothing.
func refused(t *testing.T, h *harness, id, limit string) {
	t.Helper()
	before := snap(h.g)
	d := h.g.Heartbeat(hbFor(id, 0, nil), h.now)
	if d.Change != nil || d.Response.Status != model.StatusRetry || d.Response.Limit != limit || !strings.Contains(d.Response.Message, limit) {
		t.Fatalf("want RETRY naming %s and no change, got %s limit=%q change=%v", limit, fmtResp(d.Response), d.Response.Limit, d.Change)
	}
	if !reflect.DeepEqual(before, snap(h.g)) {
		t.Fatal("a refused join changed the group")
	}
}

func TestMaxMembersRefusesJoinsBeyondIt(t *testing.T) {
	cfg := testCfg
	cfg.MaxMembers = 2
	h := newHarnessCfg(t, cfg, 4)
	h.join("A")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.join("B")
	refused(t, h, "C", model.LimitMembersPerGroup)
	if r := h.join("A"); r.Status != model.StatusOK || r.Limit != "" { // a rejoin of a counted member
		t.Fatalf("rejoin at the limit: %s", fmtResp(r))
	}
	// LEAVING still counts: it may be reading.
	h.send(hbFor("B", h.member("B").Epoch, nil))
	h.send(hbFor("A", -1, nil, drain(0)...))
	if h.member("A").State != model.StateLeaving {
		t.Fatalf("A %s", h.member("A").State)
	}
	refused(t, h, "C", model.LimitMembersPerGroup)
	h.send(hbFor("A", -1, nil)) // gone
	if r := h.join("C"); r.Status != model.StatusOK {
		t.Fatalf("room again: %s", fmtResp(r))
	}
	// FENCED and EXPIRED members do not count.
	h.send(hbFor("C", 99, nil))
	if h.member("C").State != model.StateFenced {
		t.Fatal("C fenced")
	}
	if r := h.join("D"); r.Status != model.StatusOK {
		t.Fatalf("fenced members do not count: %s", fmtResp(r))
	}
	refused(t, h, "C", model.LimitMembersPerGroup) // C's rejoin would make it live again
}

func TestJoinRateIsATokenBucketOnNow(t *testing.T) {
	cfg := testCfg
	cfg.JoinRate, cfg.JoinBurst = 2, 3
	h := newHarnessCfg(t, cfg, 4)
	for _, id := range []string{"A", "B", "C"} {
		if r := h.join(id); r.Status != model.StatusOK {
			t.Fatalf("%s within the burst: %s", id, fmtResp(r))
		}
	}
	refused(t, h, "D", model.LimitJoinsPerSecond)
	if r := h.join("A"); r.Status != model.StatusOK { // rejoin of a known member: not limited
		t.Fatalf("rejoin: %s", fmtResp(r))
	}
	h.now = h.now.Add(499 * time.Millisecond)
	refused(t, h, "D", model.LimitJoinsPerSecond)
	h.now = h.now.Add(time.Millisecond) // 0.5 s at 2/s: one token
	if r := h.join("D"); r.Status != model.StatusOK {
		t.Fatalf("after a refill: %s", fmtResp(r))
	}
	refused(t, h, "E", model.LimitJoinsPerSecond)
	h.now = h.now.Add(-time.Hour) // a clock going back refills nothing
	refused(t, h, "E", model.LimitJoinsPerSecond)
	h.now = h.now.Add(time.Hour + time.Minute) // refills up to the burst only
	for _, id := range []string{"E", "F", "G"} {
		if r := h.join(id); r.Status != model.StatusOK {
			t.Fatalf("%s: %s", id, fmtResp(r))
		}
	}
	refused(t, h, "H", model.LimitJoinsPerSecond)
}

func TestMaxRetainedDropsTheOldestThatHoldNothing(t *testing.T) {
	cfg := testCfg
	cfg.MaxRetained = 2
	h := newHarnessCfg(t, cfg, 5)
	for i, id := range []string{"A", "B", "C", "D"} {
		h.now = t0.Add(time.Duration(i) * time.Second)
		h.join(id)
	}
	// E holds shards and is fenced: retained, but never dropped early.
	h.now = t0.Add(5 * time.Second)
	h.join("E")
	h.rounds(4)
	held := h.member("E").Assigned
	if len(held) == 0 {
		t.Fatalf("E holds nothing: %s", table(h.g))
	}
	h.send(hbFor("E", 999, held)) // fenced, keeps blocking its shards
	h.now = t0.Add(6 * time.Second)
	// A, B, C, D expire one by one, oldest lease first; at most 2 of EXPIRED/FENCED stay, E included.
	trimmed := 0
	for _, id := range []string{"A", "B", "C", "D"} {
		c := h.g.Expire(id, h.member(id).LeaseDeadline.Time())
		if c != nil {
			trimmed += c.Trimmed
		}
		h.apply(c)
	}
	if trimmed != 3 { // A, B, C: each dropped when the next expiry went over the limit of 2
		t.Fatalf("Change.Trimmed summed to %d, want 3 (the shell counts it in a metric)", trimmed)
	}
	var left []string
	for _, m := range h.g.Members() {
		left = append(left, m.ID+":"+string(m.State))
	}
	if got := strings.Join(left, ","); got != "D:EXPIRED,E:FENCED" {
		t.Fatalf("kept %s, want D:EXPIRED,E:FENCED\n%s", got, table(h.g))
	}
	if id, _ := h.g.Holder(held[0]); id != "E" {
		t.Fatal("the fenced member's shards stay blocked")
	}
}
