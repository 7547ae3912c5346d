package groupstate

import (
	"testing"
	"time"
)

// A hold (store lost state) grants nothing, to a joiner or to an accepted member, until it ends;
// targets are still computed, so everything arrives once it ends.
func TestHoldGrantsUntilGrantsNothingBeforeItEnds(t *testing.T) {
	h := newHarness(t, 4)
	h.g.HoldGrantsUntil(t0.Add(10 * time.Second))
	r := h.join("A")
	wantResp(t, r, StatusOK, 1, []int{}, []int{0, 1, 2, 3})
	h.now = t0.Add(9 * time.Second)
	r = h.send(hbFor("A", 1, nil))
	wantResp(t, r, StatusOK, 1, []int{}, []int{0, 1, 2, 3})
	h.g.HoldGrantsUntil(t0) // holds only extend
	h.now = t0.Add(10 * time.Second)
	r = h.send(hbFor("A", 1, nil))
	wantResp(t, r, StatusOK, 1, []int{0, 1, 2, 3}, []int{})
}
