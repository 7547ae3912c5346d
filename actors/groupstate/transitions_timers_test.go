package groupstate

import (
	"slices"
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

func TestLeaseExpiry(t *testing.T) {
	h := stable2(t)
	if c := h.g.Expire("A", h.now.Add(testCfg.LeaseTTL-time.Nanosecond)); c != nil {
		t.Fatal("stale timer must yield nil")
	}
	c := h.g.Expire("A", h.now.Add(testCfg.LeaseTTL))
	if c == nil || !c.Durable {
		t.Fatal("expiry is durable")
	}
	h.apply(c)
	m := h.member("A")
	if m.State != model.StateExpired || len(m.Assigned)+len(m.Target) != 0 {
		t.Fatalf("member %+v", m)
	}
	if _, ok := h.g.NextDeadline("A"); ok {
		t.Fatal("expired member has no deadline")
	}
	if tg := h.member("B").Target; !slices.Equal(tg, []int{0, 1, 2, 3}) {
		t.Fatalf("B target %v", tg)
	}
}

func TestRebalanceTimeoutFences(t *testing.T) {
	h := newHarness(t, 4)
	h.join("A")
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	h.join("B")
	h.send(hbFor("B", 2, nil)) // confirmed
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	for i := 1; i <= 6; i++ { // keep the lease alive, never release
		h.now = t0.Add(time.Duration(i) * 10 * time.Second)
		if c := h.g.Expire("A", h.now); c != nil {
			h.apply(c)
			break
		}
		h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	}
	if m := h.member("A"); m.State != model.StateFenced || h.now != t0.Add(testCfg.RebalanceTimeout) {
		t.Fatalf("A must be fenced at the rebalance timeout: %+v at %s", m, h.now.Sub(t0))
	}
}

func TestNextDeadline(t *testing.T) {
	h := newHarness(t, 4)
	h.join("A")
	if d, ok := h.g.NextDeadline("A"); !ok || !d.Equal(t0.Add(testCfg.LeaseTTL)) {
		t.Fatalf("lease deadline %v %v", d, ok)
	}
	h.join("B")
	h.send(hbFor("B", 2, nil)) // confirmed
	h.send(hbFor("A", 1, []int{0, 1, 2, 3}))
	cfg := testCfg
	if d, _ := h.g.NextDeadline("A"); !d.Equal(t0.Add(min(cfg.LeaseTTL, cfg.RebalanceTimeout))) {
		t.Fatalf("deadline %v", d)
	}
	if _, ok := h.g.NextDeadline("nobody"); ok {
		t.Fatal("unknown member has no deadline")
	}
}

func TestPrune(t *testing.T) {
	h := stable2(t)
	h.send(hbFor("A", 9, nil)) // A fenced at t0, lease until t0+15s
	h.now = t0.Add(time.Minute)
	h.send(hbFor("B", 3, []int{2, 3}))
	// A's lease passed but nobody fired Expire; Prune drops it once Retention passed too.
	c := h.g.Prune(h.now)
	if c == nil || !slices.Equal(c.Removed, []string{"A"}) {
		t.Fatalf("prune %v", fmtChange(c))
	}
	h.apply(c)
	if _, held := h.g.Holder(0); held {
		t.Fatal("pruned fenced member frees its shards")
	}
	if h.g.Prune(h.now) != nil {
		t.Fatal("nothing left to prune")
	}
}

func TestPruneKeepsYoungAndBlockingMembers(t *testing.T) {
	h := stable2(t)
	h.send(hbFor("A", 9, nil))
	if c := h.g.Prune(h.now.Add(10 * time.Second)); c != nil {
		t.Fatalf("fenced member with a live lease must stay: %s", fmtChange(c))
	}
}

func TestResize(t *testing.T) {
	h := stable2(t)
	c := h.g.Resize(6, 3)
	h.apply(c)
	mt := h.g.Meta()
	if mt.ShardCount != 6 || mt.MetadataVersion != 3 || mt.GroupEpoch != 4 {
		t.Fatalf("meta %+v", mt)
	}
	h.apply(h.g.Resize(2, 1))
	if h.g.Meta().MetadataVersion != 3 {
		t.Fatal("metadata version never regresses")
	}
	if h.g.Resize(-1, 0) != nil || h.g.Resize(MaxShardCount+1, 0) != nil {
		t.Fatal("negative shard count")
	}
}

func TestRestoreGivesFreshLeases(t *testing.T) {
	h := stable2(t)
	h.send(hbFor("A", -1, nil, drain(0)...)) // LEAVING, draining 0
	later := h.now.Add(time.Hour)
	g, err := Restore(testCfg, h.g.Meta(), h.g.Members(), later)
	if err != nil {
		t.Fatal(err)
	}
	if v := g.CheckInvariants(); len(v) > 0 {
		t.Fatal(v)
	}
	a, _ := g.Member("A")
	b, _ := g.Member("B")
	if !a.LeaseDeadline.Equal(later.Add(testCfg.LeaseTTL)) || !a.RevokeDeadline.Equal(later.Add(testCfg.RebalanceTimeout)) || !b.LeaseDeadline.Equal(later.Add(testCfg.LeaseTTL)) {
		t.Fatalf("fresh deadlines: %+v %+v", a, b)
	}
	if g.Tick(later) != nil {
		t.Fatal("a restart alone never expires or fences")
	}
}

func TestRestoreRejectsCorruptRecords(t *testing.T) {
	good := func() (model.Meta, []model.Member) {
		h := stable2(t)
		return h.g.Meta(), h.g.Members()
	}
	for _, tc := range []struct {
		name string
		mut  func(*model.Meta, []model.Member)
	}{
		{"assignment epoch ahead", func(m *model.Meta, _ []model.Member) { m.AssignmentEpoch = m.GroupEpoch + 1 }},
		{"double holder", func(_ *model.Meta, ms []model.Member) { ms[1].Assigned = []int{0, 2, 3} }},
		{"unsorted", func(_ *model.Meta, ms []model.Member) { ms[0].Assigned = []int{1, 0} }},
		{"duplicate id", func(_ *model.Meta, ms []model.Member) { ms[1].ID = ms[0].ID }},
		{"bad state", func(_ *model.Meta, ms []model.Member) { ms[0].State = "ZOMBIE" }},
		{"epoch ahead", func(m *model.Meta, ms []model.Member) { ms[0].Epoch = m.AssignmentEpoch + 1 }},
		{"huge shard index", func(_ *model.Meta, ms []model.Member) { ms[0].Revoking = []int{1 << 40} }},
		{"huge shard count", func(m *model.Meta, _ []model.Member) { m.ShardCount = MaxShardCount + 1 }},
		{"expired with shards", func(_ *model.Meta, ms []model.Member) { ms[0].State = model.StateExpired }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, ms := good()
			tc.mut(&m, ms)
			if _, err := Restore(testCfg, m, ms, t0); err == nil {
				t.Fatal("want error")
			}
		})
	}
}
