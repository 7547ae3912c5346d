//go:build linux

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/test/harness"
)

// demoProc is the demo run as a real process, its output scanned.
type demoProc struct {
	cmd    *exec.Cmd
	exited chan struct{}
	out    interface{ Close() error }
	mu     sync.Mutex
	lines  []string
}

func startDemo(t *testing.T, args ...string) *demoProc {
	t.Helper()
	bin, err := harness.BinaryOf("./cmd/demo")
	require.NoError(t, err)
	d := &demoProc{cmd: exec.Command(bin, args...), exited: make(chan struct{})}
	d.cmd.Dir = harness.RepoRoot()
	if e := harness.GoFlagsEnv(); e != "" {
		// The demo's own go build of the coordinator and the member process
		// reuses what the race pass compiled.
		d.cmd.Env = append(os.Environ(), e)
	}
	out, err := d.cmd.StdoutPipe()
	require.NoError(t, err)
	d.cmd.Stderr = d.cmd.Stdout
	d.out = out
	require.NoError(t, d.cmd.Start())
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			d.mu.Lock()
			d.lines = append(d.lines, sc.Text())
			d.mu.Unlock()
		}
		_ = d.cmd.Wait()
		close(d.exited)
	}()
	t.Cleanup(func() {
		_ = d.cmd.Process.Kill()
		<-d.exited
		if t.Failed() {
			t.Logf("demo output:\n%s", d.output())
		}
	})
	return d
}

func (d *demoProc) output() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.Join(d.lines, "\n")
}

// waitFor waits until a line matches re and returns its submatches.
func (d *demoProc) waitFor(t *testing.T, re string, timeout time.Duration) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	var m []string
	require.Eventually(t, func() bool {
		m = rx.FindStringSubmatch(d.output())
		return m != nil
	}, timeout, 20*time.Millisecond, "demo never printed %q", re)
	return m
}

// children lists the processes whose parent is pid.
func children(t *testing.T, pid int) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	require.NoError(t, err)
	var out []int
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // exited meanwhile
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // state ppid …
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			child, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			out = append(out, child)
		}
	}
	return out
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

func requireAllGone(t *testing.T, pids []int, within time.Duration) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, p := range pids {
			if alive(p) {
				return false
			}
		}
		return true
	}, within, 20*time.Millisecond, "children %v still running", pids)
}

// Ctrl-C stops the demo at once: its processes are gone and its temporary
// directory removed.
func TestDemoStopsAtOnceOnSIGINTAndCleansUp(t *testing.T) {
	d := startDemo(t)
	dir := d.waitFor(t, `logs and report in (\S+)\)`, 30*time.Second)[1]
	d.waitFor(t, `Started 3 members`, 3*time.Minute)
	kids := children(t, d.cmd.Process.Pid)
	require.GreaterOrEqual(t, len(kids), 5, "redis-server, coordinator and 3 members run")
	require.DirExists(t, dir)

	sent := time.Now()
	require.NoError(t, d.cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-d.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the demo did not stop within 10s of SIGINT")
	}
	t.Logf("demo stopped %s after SIGINT", time.Since(sent).Round(time.Millisecond))
	require.Equal(t, 130, d.cmd.ProcessState.ExitCode())
	requireAllGone(t, kids, 5*time.Second)
	require.NoDirExists(t, dir, "the temporary directory is removed")
	require.Contains(t, d.output(), "demo: removed "+dir)
}

// A demo killed with SIGKILL leaves no child behind.
func TestDemoKilledLeavesNoChildren(t *testing.T) {
	d := startDemo(t)
	d.waitFor(t, `Started 3 members`, 3*time.Minute)
	kids := children(t, d.cmd.Process.Pid)
	require.GreaterOrEqual(t, len(kids), 5, "redis-server, coordinator and 3 members run")
	require.NoError(t, d.cmd.Process.Kill())
	<-d.exited
	requireAllGone(t, kids, 5*time.Second)
	// What SIGKILL cannot clean, the next run's user can: the demo said where.
	if m := regexp.MustCompile(`logs and report in (\S+)\)`).FindStringSubmatch(d.output()); m != nil {
		_ = os.RemoveAll(m[1])
	}
}

// A demo whose output pipe closes (its reader went away) stops and cleans
// up as on Ctrl-C: the write fails with SIGPIPE, which the demo handles.
func TestDemoStopsWhenItsOutputPipeCloses(t *testing.T) {
	d := startDemo(t)
	dir := d.waitFor(t, `logs and report in (\S+)\)`, 30*time.Second)[1]
	d.waitFor(t, `Started 3 members`, 3*time.Minute)
	kids := children(t, d.cmd.Process.Pid)
	require.GreaterOrEqual(t, len(kids), 5)
	require.NoError(t, d.out.Close())
	select {
	case <-d.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the demo kept running 30s after its output pipe closed")
	}
	requireAllGone(t, kids, 5*time.Second)
	require.Eventually(t, func() bool { _, err := os.Stat(dir); return os.IsNotExist(err) }, 5*time.Second, 20*time.Millisecond,
		"the temporary directory is removed")
}
