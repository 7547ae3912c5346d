package harness

import "testing"

func TestReproduceCommand(t *testing.T) {
	race := ""
	if raceEnabled {
		race = "-race "
	}
	got := ReproduceCommand("TestScaleIn/two_members+one")
	want := "go test " + race + "-count=1 -run '^TestScaleIn$/^two_members\\+one$' -v ./test/harness/"
	if got != want {
		t.Fatalf("ReproduceCommand:\n got %s\nwant %s", got, want)
	}
}
