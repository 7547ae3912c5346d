package groupstate

import (
	"fmt"
	"strings"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// runCapacity runs the scenario commands of capacity-weighted assignment (capacity.go):
//
//	assignment mode=capacity|uniform   the operator sets the mode (SetAssignment)
//	shares                             every live member's runtimeMaxConcurrency and target size
func (sc *scenario) runCapacity(cmd string, args map[string]string) (string, bool) {
	switch cmd {
	case "assignment":
		c, err := SetAssignment(sc.h.g, model.AssignmentMode(args["mode"]), sc.h.now)
		if err != nil {
			return "error: " + err.Error(), true
		}
		sc.h.apply(c)
		if sc.h.g.Meta().ShardCount > 64 {
			return sc.fmtChange(c) + "\n" + summary(sc.h.g) + "\n" + shares(sc.h.g), true
		}
		return sc.fmtChange(c) + "\n" + table(sc.h.g), true
	case "shares":
		return summary(sc.h.g) + "\n" + shares(sc.h.g), true
	}
	return "", false
}

// shares lists every live member's reported capacity and target and assigned sizes.
func shares(g *Group) string {
	var parts []string
	for _, m := range g.Members() {
		if m.State.InTarget() {
			parts = append(parts, fmt.Sprintf("%s cap=%d target=%d assigned=%d", m.ID, m.Capacity.MaxConcurrency, len(m.Target), len(m.Assigned)))
		}
	}
	return "  " + strings.Join(parts, "\n  ")
}

// capacity is the heartbeat's capacity: cap=N, else what the member last reported, else 4.
func (sc *scenario) capacity(id string, num func(string, int64) int64) model.Capacity {
	def := int64(4)
	if m, ok := sc.h.g.Member(id); ok && m.State.InTarget() {
		def = int64(m.Capacity.MaxConcurrency)
	}
	n := int(num("cap", def))
	return model.Capacity{MaxConcurrency: n, Available: max(n, 0)}
}
