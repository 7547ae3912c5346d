package groupstate

import "fmt"

// runPause runs the scenario commands of an operator's pause of rebalancing (pause.go):
//
//	pause [by=ops] [reason=deploy]   freeze voluntary moves (SetPaused true)
//	resume [by=ops]                  resume them (SetPaused false)
//
// Both print the Change and the group; the table's first line ends with "paused by=… since=…"
// while the group is paused.
func (sc *scenario) runPause(cmd string, args map[string]string) (string, bool) {
	switch cmd {
	case "pause", "resume":
		by := args["by"]
		if by == "" {
			by = "ops"
		}
		c := SetPaused(sc.h.g, cmd == "pause", by, args["reason"], sc.h.now)
		sc.h.apply(c)
		return sc.fmtChange(c) + "\n" + table(sc.h.g), true
	}
	return "", false
}

// pausedNote is the table's note on a paused group ("" when rebalancing is active).
func pausedNote(g *Group) string {
	p := g.Meta().Paused
	if !p.IsSet() {
		return ""
	}
	return fmt.Sprintf(" paused by=%s reason=%q since=+%s", p.RequestedBy, p.Reason, p.Since.Sub(t0))
}
