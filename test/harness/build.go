package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
)

// BinDirEnv names a directory the test processes of one run share for the
// binaries BinaryOf builds, so that each is linked once per run rather than
// once per test package: `make test` creates a fresh one for the run and
// removes it after (binaries there are never rebuilt, so a directory must not
// outlive the sources it was built from). Unset, each test process builds
// into a temporary directory of its own. Not an RSC_ name: the coordinator
// refuses unknown RSC_ variables, and some tests pass their environment on.
const BinDirEnv = "COORDINATOR_TEST_BINDIR"

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
// module the server requires, like the SDK's example) once per process, or
// once per run under BinDirEnv, and returns its path.
func BinaryOf(pkg string) (string, error) {
	buildOnce.Do(func() {
		if buildDir = os.Getenv(BinDirEnv); buildDir == "" {
			buildDir, buildErr = os.MkdirTemp("", "rsc-bin-")
		}
	})
	if buildErr != nil {
		return "", buildErr
	}
	dir := buildDir
	if raceEnabled { // the name stays the program's: tests look for it in process lists
		dir = filepath.Join(buildDir, "race")
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	binMu.Lock()
	defer binMu.Unlock()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	// Other test processes of the run may build the same binary at the same
	// time: the first to take the lock builds it, the others wait and find it.
	lock, err := os.OpenFile(out+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	args := []string{"build", "-o", out + ".tmp"}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, pkg)
	cmd := exec.Command("go", args...)
	cmd.Dir = RepoRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return out, os.Rename(out+".tmp", out)
}

var binMu sync.Mutex

// BuildFlags are the go build flags of a build a test runs itself: -race
// when the test binary is race-built. make test vets and tests with -race,
// so a build with the same flags reuses every compiled package, where a
// plain build would compile the standard library and every dependency once
// more (k8s.io/client-go alone: 85 s on an empty build cache).
func BuildFlags() []string {
	if raceEnabled {
		return []string{"-race"}
	}
	return nil
}

// GoFlagsEnv is BuildFlags as an environment entry (GOFLAGS=…) for a
// program that runs go build itself (cmd/demo); "" without flags.
func GoFlagsEnv() string {
	if f := BuildFlags(); len(f) > 0 {
		return "GOFLAGS=" + strings.Join(f, " ")
	}
	return ""
}
