package groupstate

import (
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// fuzzAssignment switches the group's assignment mode (SetAssignment): b picks the mode,
// including one that is not a mode (an error, no change).
func fuzzAssignment(t *testing.T, g *Group, b byte, now time.Time) *Change {
	mode := [...]model.AssignmentMode{model.AssignCapacity, model.AssignUniform, "", "bogus"}[int(b>>2)%4]
	c, err := SetAssignment(g, mode, now)
	if (err != nil) != (mode == "bogus") || (err != nil && c != nil) {
		t.Fatalf("SetAssignment(%q) = %v, %v", mode, c, err)
	}
	if err == nil && c == nil && g.Meta().Assignment.Effective() != mode.Effective() {
		t.Fatalf("SetAssignment(%q) changed nothing in mode %q", mode, g.Meta().Assignment)
	}
	return c
}

// checkShares: right after a reassignment in capacity mode, no member taking part is off its
// share by the drift threshold (capacity.go, Drifted).
func checkShares(t *testing.T, g *Group) {
	t.Helper()
	if g.Meta().Assignment != model.AssignCapacity {
		return
	}
	var all, active []*model.Member
	for _, m := range g.Members() {
		if m.State.InTarget() {
			all = append(all, &m)
			if m.State == model.StateActive {
				active = append(active, &m)
			}
		}
	}
	if len(active) == 0 {
		active = all
	}
	if d := driftedMembers(active, g.Meta().ShardCount); len(d) > 0 {
		t.Fatalf("members %v drifted from their capacity shares right after a reassignment\n%s", d, table(g))
	}
}
