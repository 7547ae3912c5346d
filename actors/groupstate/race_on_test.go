//go:build race

package groupstate

// raceEnabled: the test binary is built with -race (see simSeeds).
const raceEnabled = true
