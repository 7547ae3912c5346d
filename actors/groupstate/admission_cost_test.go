package groupstate

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// scaleUp measures what admission costs a normal scale-up: `existing` members share `shards`
// shards, then one new member joins. Every round each member heartbeats once (every
// heartbeatInterval), in the given order, reporting what it reads; a revoked shard is released
// at the member's next heartbeat (instant drain). It returns the number of rounds after the
// join round until the new member is told its whole share.
func scaleUp(tb testing.TB, existing, shards int, joinerFirst bool) int {
	h := &harness{tb: tb, g: New(testCfg, "s", "g", shards, 0), now: t0}
	reads := map[string][]int{}
	epoch := map[string]int64{}
	var ids []string
	beat := func(id string) model.Response {
		r := h.send(hbFor(id, epoch[id], reads[id]))
		if r.Status == model.StatusOK {
			epoch[id], reads[id] = r.MemberEpoch, r.Assigned
		}
		return r
	}
	round := func() {
		h.now = h.now.Add(testCfg.HeartbeatInterval)
		order := slices.Clone(ids)
		if joinerFirst {
			slices.Reverse(order)
		}
		for _, id := range order {
			beat(id)
		}
	}
	for i := 0; i < existing; i++ {
		id := fmt.Sprintf("m%d", i)
		ids = append(ids, id)
		beat(id)
		for range 4 {
			round()
		}
	}
	ids = append(ids, "new")
	beat("new")
	for n := 1; n <= 20; n++ {
		round()
		m := h.member("new")
		if m.State == model.StateActive && len(m.Target) > 0 && slices.Equal(reads["new"], m.Target) && len(m.Pending) == 0 {
			return n
		}
	}
	tb.Fatalf("the new member did not get its share in 20 rounds:\n%s", table(h.g))
	return 0
}

// TestScaleUpRounds reports (with -v) how many heartbeat rounds a new member waits for its
// share. Deterministic: rounds, not wall time.
func TestScaleUpRounds(t *testing.T) {
	for _, tc := range []struct{ existing, shards int }{{1, 4}, {2, 16}, {4, 64}} {
		first, last := scaleUp(t, tc.existing, tc.shards, true), scaleUp(t, tc.existing, tc.shards, false)
		t.Logf("%d members × %d shards, +1 member: %d rounds (joiner heartbeats first in a round), %d rounds (last); 1 round = heartbeatInterval %s",
			tc.existing, tc.shards, first, last, testCfg.HeartbeatInterval)
		// Without admission this was 3 and 2 rounds: confirming the joiner first costs at most
		// one heartbeat interval (docs/BENCHMARKS.md).
		if first > 3 || last > 3 {
			t.Fatalf("scale-up takes %d/%d rounds, want ≤ 3", first, last)
		}
	}
}

// TestPhantomFloodCostsRealMembersNothing: 500 members join at 50 per second and are never
// heard from again while 2 real members own 16 shards. The real members keep every shard the
// whole time (no revocation is ever started on a phantom's behalf) and the phantoms expire
// after one lease.
func TestPhantomFloodCostsRealMembersNothing(t *testing.T) {
	h := &harness{tb: t, g: New(testCfg, "s", "g", 16, 0), now: t0}
	reads := map[string][]int{}
	beat := func(id string) {
		m := h.member(id)
		r := h.send(hbFor(id, m.Epoch, reads[id]))
		if r.Status != model.StatusOK {
			t.Fatalf("%s: %s", id, fmtResp(r))
		}
		reads[id] = r.Assigned
	}
	h.join("A")
	reads["A"] = h.member("A").Assigned
	h.join("B")
	for range 4 {
		h.now = h.now.Add(testCfg.HeartbeatInterval)
		beat("A")
		beat("B")
	}
	if len(reads["A"]) != 8 || len(reads["B"]) != 8 {
		t.Fatalf("setup: A %v B %v", reads["A"], reads["B"])
	}
	start, next := h.now, h.now
	check := func() {
		t.Helper()
		for s := range 16 {
			if id, _ := h.g.Holder(s); id != "A" && id != "B" {
				t.Fatalf("at +%s shard %d held by %q", h.now.Sub(start), s, id)
			}
		}
		if len(reads["A"])+len(reads["B"]) != 16 {
			t.Fatalf("at +%s real members read %v and %v", h.now.Sub(start), reads["A"], reads["B"])
		}
		for _, id := range []string{"A", "B"} {
			if m := h.member(id); len(m.Revoking) > 0 {
				t.Fatalf("at +%s %s is revoking %v", h.now.Sub(start), id, m.Revoking)
			}
		}
	}
	for i := range 500 {
		h.now = start.Add(time.Duration(i) * 20 * time.Millisecond)
		if !h.now.Before(next) {
			beat("A")
			beat("B")
			next = next.Add(testCfg.HeartbeatInterval)
		}
		h.join(fmt.Sprintf("phantom-%03d", i))
		check()
	}
	for h.now.Before(start.Add(10*time.Second + testCfg.LeaseTTL + testCfg.HeartbeatInterval)) {
		h.now = h.now.Add(time.Second)
		h.apply(h.g.Tick(h.now))
		if !h.now.Before(next) {
			beat("A")
			beat("B")
			next = next.Add(testCfg.HeartbeatInterval)
		}
		check()
	}
	if h.g.Live() != 2 {
		t.Fatalf("phantoms still live: %d", h.g.Live())
	}
}
