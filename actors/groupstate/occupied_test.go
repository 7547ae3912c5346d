package groupstate

import (
	"testing"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Occupied counts members a group may not be forgotten with: live ones, a LEAVING member still
// draining, a FENCED member still holding; not EXPIRED ones nor a FENCED one holding nothing.
func TestOccupiedCountsMembersStillHoldingShards(t *testing.T) {
	h := stable2(t) // A [0 1], B [2 3], both ACTIVE
	if got := h.g.Occupied(); got != 2 {
		t.Fatalf("Occupied = %d, want 2", got)
	}
	h.send(hbFor("A", -1, nil, drain(0)...)) // LEAVING, draining 0
	if h.member("A").State != model.StateLeaving || h.g.Live() != 1 || h.g.Occupied() != 2 {
		t.Fatalf("after A leaves holding 0: state %s live %d occupied %d", h.member("A").State, h.g.Live(), h.g.Occupied())
	}
	h.send(hbFor("B", 99, nil)) // stale epoch: FENCED, still holding its shards
	if h.member("B").State != model.StateFenced || h.g.Live() != 0 || h.g.Occupied() != 2 {
		t.Fatalf("after B is fenced: state %s live %d occupied %d", h.member("B").State, h.g.Live(), h.g.Occupied())
	}
	h.now = h.now.Add(testCfg.LeaseTTL)
	h.apply(h.g.Tick(h.now))
	if got := h.g.Occupied(); got != 0 {
		t.Fatalf("after both leases passed: Occupied = %d, want 0", got)
	}
	if !h.g.Known("A") || h.g.Known("nobody") {
		t.Fatal("Known: EXPIRED members are known, absent ones are not")
	}
}
