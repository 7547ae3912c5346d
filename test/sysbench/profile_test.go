package sysbench

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// profile samples the CPU of process pid with perf (call graphs by frame
// pointer, which Go binaries keep) into path until the returned stop is
// called: RSC_BENCH_CPUPROFILE=path profiles the coordinator during the load
// scenario from 2 s after the members start (past their joins and settling;
// during the baseline's rounds the coordinator is idle). Read it with `perf report -i path --no-children`. The coordinator
// has no profiling endpoint of its own, and perf needs no change to it.
func profile(t *testing.T, pid int, path string) (stop func()) {
	t.Helper()
	bin, err := exec.LookPath("perf")
	if err != nil {
		t.Fatalf("RSC_BENCH_CPUPROFILE needs perf on PATH (linux-perf): %v", err)
	}
	// --delay: skip the members joining and settling (about a second), which is
	// not the steady state the load measures.
	cmd := exec.Command(bin, "record", "-q", "-F", "499", "--delay", "2000", "--call-graph", "fp", "-p", strconv.Itoa(pid), "-o", path)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("RSC_BENCH_CPUPROFILE: start perf: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // perf attaches before the load starts
	return func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait() // perf exits with the interrupt it was stopped by
		t.Logf("CPU profile of the coordinator written to %s (perf report -i %s --no-children)", path, path)
	}
}
