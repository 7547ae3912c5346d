package groupstate

import "testing"

// raceSeeds is how many seeds a randomized sweep runs under the race
// detector. The rules are single-threaded and pure (time passed in): the
// detector has nothing to find in a schedule that a few seeds do not already
// run, and each seed costs several times as much under it. `make test` runs
// the full sweeps in a pass of their own without -race (the Makefile's test
// target), so every make test checks at least as many schedules as before.
const raceSeeds = 20

// simSeeds is how many seeds a sweep runs: full, short with -short, and at
// most raceSeeds under the race detector (said in the test's log).
func simSeeds(t *testing.T, full, short int) int {
	n := full
	if testing.Short() {
		n = short
	}
	if raceEnabled && n > raceSeeds {
		t.Logf("race detector on: %d of %d seeds; the full sweep runs without -race (make test)", raceSeeds, n)
		n = raceSeeds
	}
	return n
}

// withoutRace skips a heavy test of the pure rules (a 1,024-shard join
// storm) under the race detector, for the reason of raceSeeds: the
// Makefile's non-race pass runs it.
func withoutRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("heavy and single-threaded: runs without -race (make test's second pass)")
	}
}
