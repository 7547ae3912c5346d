package cluster

import "strings"

// races splits the data race reports in a race-built coordinator's log into
// those where one of the two racing accesses is in this module's code (the
// access's top frame; returned in full) and those where both are inside
// dependencies, even if called from this module (counted; protoactor-go has
// known races, see /work/shared/notes/protoactor-go.md).
func races(logs string) (ours []string, upstream int) {
	parts := strings.Split(logs, "WARNING: DATA RACE")
	for _, p := range parts[1:] {
		if end := strings.Index(p, "=================="); end >= 0 {
			p = p[:end]
		}
		top, mine := false, false
		for _, line := range strings.Split(p, "\n") {
			l := strings.TrimSpace(line)
			switch {
			case strings.HasSuffix(l, ":") && strings.Contains(l, " at 0x"):
				top = true // "Write at 0x… by goroutine N:": its next line is the top frame
			case top:
				top = false
				if strings.HasPrefix(l, "github.com/redisstream/coordinator/") {
					mine = true
				}
			}
		}
		if mine {
			ours = append(ours, "WARNING: DATA RACE"+p)
		} else {
			upstream++
		}
	}
	return ours, upstream
}

// ourFrames lists the distinct top frames in this module of the racing
// accesses in reports (as returned by races).
func ourFrames(reports []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range reports {
		top := false
		for _, line := range strings.Split(r, "\n") {
			l := strings.TrimSpace(line)
			switch {
			case strings.HasSuffix(l, ":") && strings.Contains(l, " at 0x"):
				top = true
			case top:
				top = false
				if f, ok := strings.CutPrefix(l, "github.com/redisstream/coordinator/"); ok && !seen[f] {
					seen[f] = true
					out = append(out, f)
				}
			}
		}
	}
	return out
}
