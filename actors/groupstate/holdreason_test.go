package groupstate

import (
	"strings"
	"testing"
)

// A hold with a reason tells members that reason while their shards are pending; a later
// store-loss hold that ends after it takes over with the store-loss message.
func TestHoldGrantsForTellsItsReason(t *testing.T) {
	h := stable2(t) // A [0 1], B [2 3]
	quiet := h.now.Add(testCfg.HeartbeatInterval)
	h.g.HoldGrantsFor(quiet, "new data set: waiting")
	h.send(hbFor("B", -1, nil)) // B's shards are free, but held
	r := h.send(hbFor("A", h.member("A").Epoch, []int{0, 1}))
	if len(r.Pending) == 0 || !strings.HasPrefix(r.Message, "new data set: waiting") {
		t.Fatalf("pending without the hold's reason: %s", fmtResp(r))
	}
	h.g.HoldGrantsUntil(quiet.Add(testCfg.LeaseTTL))
	r = h.send(hbFor("A", h.member("A").Epoch, []int{0, 1}))
	if !strings.HasPrefix(r.Message, "state lost") {
		t.Fatalf("the longer store-loss hold did not take over the message: %s", fmtResp(r))
	}
}
