//go:build race

package main

// buildFlags are those of the builds the tests run themselves: the race
// detector's, as the test binary's, so that they reuse the packages make
// test compiled (see test/harness.BuildFlags).
var buildFlags = []string{"-race"}
