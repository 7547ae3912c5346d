package redistest

import "testing"

// FreePort hands out ports below the kernel's ephemeral range, each once.
func TestFreePortAvoidsTheEphemeralRange(t *testing.T) {
	lo, hi := pickRange()
	if lo == 0 {
		t.Skip("no room below this machine's ephemeral range; FreePort lets the kernel pick")
	}
	seen := map[int]bool{}
	for range 200 {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
		if p < lo || p > hi {
			t.Fatalf("port %d outside [%d, %d]", p, lo, hi)
		}
	}
}
