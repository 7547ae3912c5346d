package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// RepoRoot is the module root (found from this file's location).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Binary builds ./cmd/<name> once per process (race detector on when the
// test binary has it) and returns its path.
func Binary(name string) (string, error) { return BinaryOf("./cmd/" + name) }

// BinaryOf builds the main package at pkg (a path relative to the module
// root, like "./test/memberproc", or the import path of a package of a
// module the server requires, like the SDK's example) once per process and
// returns its path.
func BinaryOf(pkg string) (string, error) {
	name := filepath.Base(pkg)
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "rsc-bin-")
	})
	if buildErr != nil {
		return "", buildErr
	}
	out := filepath.Join(buildDir, name)
	binMu.Lock()
	defer binMu.Unlock()
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	args := []string{"build", "-o", out}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, pkg)
	cmd := exec.Command("go", args...)
	cmd.Dir = RepoRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return out, nil
}

var binMu sync.Mutex
