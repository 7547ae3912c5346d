package sysbench

import (
	"strings"
	"testing"
)

// The host rows' verdicts: memory against the target on the defaults and with a limit, idle
// reads by commands per renewal (a window holding one renewal more is not a failure, a read
// per group is).
func TestHostFiguresMarkdownVerdicts(t *testing.T) {
	idle := func(nodes, groups int, commands, renewals int64) idleResult {
		return idleResult{Nodes: nodes, Groups: groups, WindowSeconds: 3, Commands: commands,
			CommandsPerSec: float64(commands) / 3, Stats: map[string]int64{"evalsha": renewals}}
	}
	h := &hostFigures{
		Mem:        &memResult{Groups: 1000, Members: 100000, SteadyRSSMean: 3.9, SteadyRounds: 8},
		MemLimited: &memResult{Groups: 1000, Members: 100000, SteadyRSSMean: 2.9, MemoryLimit: "320 MiB"},
		Idle: []idleResult{idle(1, 0, 48, 4), idle(1, 1000, 60, 5), // one renewal more: 12 per renewal both
			idle(2, 0, 96, 8), idle(2, 1000, 96+8*1000, 8)}, // a read per group per renewal
	}
	var b strings.Builder
	h.markdown(&b)
	rows := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4:\n%s", len(rows), b.String())
	}
	for i, want := range []string{"met only with a memory limit |", "| met |", "| met |", "| **not met** |"} {
		if !strings.HasSuffix(rows[i], want) {
			t.Errorf("row %d does not end with %q:\n%s", i, want, rows[i])
		}
	}
	if !strings.Contains(rows[0], "100,000 members") {
		t.Errorf("row 0 does not name 100,000 members:\n%s", rows[0])
	}
}
