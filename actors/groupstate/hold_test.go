package groupstate

import (
	"slices"
	"testing"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// After a rollback the restored record may list a shard its member no longer reads (it was
// revoked and granted elsewhere after the snapshot): during the hold the member is told only
// what it reports reading, and nothing is newly granted to anyone.
func TestHoldGrantsTellsOnlyWhatIsRead(t *testing.T) {
	h := stable2(t) // A [0 1], B [2 3]
	g, err := Restore(testCfg, h.g.Meta(), h.g.Members(), h.now)
	if err != nil {
		t.Fatal(err)
	}
	h.g = g
	until := h.now.Add(testCfg.LeaseTTL)
	g.HoldGrantsUntil(until)
	g.HoldGrantsUntil(h.now) // an earlier end never shortens a hold
	if !g.GrantsHeldUntil().Equal(until) {
		t.Fatalf("held until %s", g.GrantsHeldUntil())
	}
	r := h.send(hbFor("A", 3, []int{0})) // A stopped reading 1 after the snapshot
	wantResp(t, r, model.StatusOK, 3, []int{0}, []int{1})
	if r.Message == "" {
		t.Fatal("the member is told why")
	}
	if m := h.member("A"); !slices.Equal(m.Assigned, []int{0, 1}) {
		t.Fatalf("the state keeps what it knows: %v", m.Assigned)
	}
	// B leaves; its shards are free but nobody is granted them during the hold.
	h.send(hbFor("B", -1, nil))
	r = h.send(hbFor("A", 3, []int{0}))
	if !slices.Equal(r.Assigned, []int{0}) || !slices.Equal(h.member("A").Assigned, []int{0, 1}) {
		t.Fatalf("granted during the hold: %s / %v", fmtResp(r), h.member("A").Assigned)
	}
	r = h.send(hbFor("C", 0, nil))
	wantResp(t, r, model.StatusOK, r.MemberEpoch, []int{}, []int{})
	h.now = until
	r = h.send(hbFor("A", h.member("A").Epoch, []int{0}))
	if len(r.Assigned) < 2 || r.Message != "" {
		t.Fatalf("after the hold A is granted again: %s", fmtResp(r))
	}
}
