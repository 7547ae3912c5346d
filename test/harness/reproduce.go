package harness

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// reproducing holds the tests ReportReproduce already registered with.
var reproducing sync.Map // testing.TB → struct{}

// ReportReproduce makes t, if it fails, end its output with the command
// that runs it alone, the way `make test` ran it:
//
//	reproduce: go test -race -count=1 -run '^TestX$' -v ./test/e2e/
//
// Tests with a seed or a schedule of their own log those beside it.
// Registering twice for one test is harmless: the line comes once, after
// every coordinator log the test dumps (StartCoordinator registers it for
// every test that starts one, before its own cleanups).
func ReportReproduce(t testing.TB) {
	if _, loaded := reproducing.LoadOrStore(t, struct{}{}); loaded {
		return
	}
	t.Cleanup(func() {
		reproducing.Delete(t)
		if t.Failed() {
			t.Logf("reproduce: %s", ReproduceCommand(t.Name()))
		}
	})
}

// ReproduceCommand is the go test command that runs the test named name
// (t.Name(), subtests included) of the package in the working directory.
func ReproduceCommand(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	pkg := "."
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(RepoRoot(), wd); err == nil && !strings.HasPrefix(rel, "..") {
			pkg = "./" + filepath.ToSlash(rel) + "/"
		}
	}
	race := ""
	if raceEnabled {
		race = "-race "
	}
	return "go test " + race + "-count=1 -run '" + strings.Join(parts, "/") + "' -v " + pkg
}
