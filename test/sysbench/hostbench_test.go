package sysbench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/redisstream/coordinator/test/benchresult"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/test/harness"
)

// The node's memory per member and its Redis commands with many idle active groups are
// measured by the in-process benchmarks of actors/host (TestMemoryPerMemberBenchmark,
// TestIdleGroupsRedisReads*Benchmark): the suite builds that package's test binary once
// (without -race: the in-process cluster needs it) and runs those tests in processes of their
// own, one after the other, each writing its figures as JSON lines to the file
// RSC_BENCH_RESULT names.

// memResult and idleResult are the JSON lines of actors/host's benchmarks.
type (
	memResult  = benchresult.Memory
	idleResult = benchresult.Idle
)

// hostFigures is what the host benchmarks measured: memory on the runtime's defaults and with
// a memory limit, and idle reads per setup (single node, 2-node cluster; no group and many).
type hostFigures struct {
	Mem, MemLimited *memResult
	Idle            []idleResult
}

// hostTestBinary builds actors/host's test binary.
func hostTestBinary(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "host.test")
	cmd := exec.Command("go", "test", "-c", "-o", out, "./actors/host/")
	cmd.Dir = harness.RepoRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -c ./actors/host/: %v\n%s", err, b)
	}
	return out
}

// runHostBench runs the tests of bin matching run with env added (GOMEMLIMIT removed unless
// env sets it) and returns the JSON lines they wrote.
func runHostBench(t *testing.T, bin, run string, env ...string) []json.RawMessage {
	t.Helper()
	result := filepath.Join(t.TempDir(), "result.jsonl")
	cmd := exec.Command(bin, "-test.run", run, "-test.count", "1", "-test.v", "-test.timeout", "8m")
	cmd.Dir = filepath.Join(harness.RepoRoot(), "actors", "host")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOMEMLIMIT=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Env = append(cmd.Env, "RSC_BENCH_RESULT="+result)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s -test.run %s %v: %v\n%s", filepath.Base(bin), run, env, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, ".go:") { // the tests' own log lines
			t.Logf("BENCH host %s", strings.TrimSpace(line))
		}
	}
	t.Logf("BENCH host %s %v took %s", run, env, time.Since(start).Round(time.Second))
	f, err := os.Open(result)
	if err != nil {
		t.Fatalf("%s wrote no result: %v", run, err)
	}
	defer f.Close()
	var lines []json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, json.RawMessage(append([]byte(nil), sc.Bytes()...)))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func runHost(t *testing.T, p params) *hostFigures {
	bin := hostTestBinary(t)
	var h hostFigures
	memEnv := []string{"RSC_BENCH_MEM=1", fmt.Sprintf("RSC_BENCH_MEM_GROUPS=%d", p.MemGroups)}
	for i, env := range [][]string{memEnv, append(memEnv[:len(memEnv):len(memEnv)], "GOMEMLIMIT="+p.MemLimit)} {
		lines := runHostBench(t, bin, "^TestMemoryPerMemberBenchmark$", env...)
		if len(lines) != 1 {
			t.Fatalf("memory benchmark wrote %d results, want 1", len(lines))
		}
		var m memResult
		if err := json.Unmarshal(lines[0], &m); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			h.Mem = &m
		} else {
			h.MemLimited = &m
		}
	}
	for _, l := range runHostBench(t, bin, "^TestIdleGroupsRedisReads(Cluster)?Benchmark$",
		"RSC_BENCH_IDLE_READS=1", fmt.Sprintf("RSC_BENCH_IDLE_GROUPS=%d", idleGroups), "RSC_BENCH_IDLE_WINDOW="+p.IdleWindow.String()) {
		var r idleResult
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		h.Idle = append(h.Idle, r)
	}
	if len(h.Idle) != 4 {
		t.Fatalf("idle-reads benchmarks wrote %d results, want 4", len(h.Idle))
	}
	return &h
}

// idleGroups is the number of active idle groups of the idle-reads figure.
const idleGroups = 1000

// memTargetKiB is the target of RSS per member.
const memTargetKiB = 3.0

// idle returns the idle-reads result of nodes nodes and groups groups.
func (h *hostFigures) idle(nodes, groups int) idleResult {
	for _, r := range h.Idle {
		if r.Nodes == nodes && r.Groups == groups {
			return r
		}
	}
	return idleResult{}
}

// markdown writes the table rows of the host figures.
func (h *hostFigures) markdown(b *strings.Builder) {
	m, l := h.Mem, h.MemLimited
	figures := func(m *memResult) string {
		return fmt.Sprintf("steady RSS mean **%.2f KiB**, max %.2f KiB; after a full GC: RSS %.2f KiB (%.2f KiB once freed pages are returned), heap in use %.2f KiB (live objects %.2f KiB); steady heap in use mean %.2f KiB; GC %.0f %% of CPU in the steady rounds",
			m.SteadyRSSMean, m.SteadyRSSMax, m.RSSAfterGCKiB, m.RSSReturnedKiB, m.HeapInuseKiB, m.LiveKiB, m.SteadyHeapMean, m.GCCPUPercent)
	}
	ok, okLimited := m.SteadyRSSMean <= memTargetKiB, l.SteadyRSSMean <= memTargetKiB
	v := "**not met**, with or without a memory limit"
	switch {
	case ok && okLimited:
		v = "met"
	case okLimited:
		v = "**not met** on the defaults; met only with a memory limit"
	case ok:
		v = "met on the defaults"
	}
	fmt.Fprintf(b, "| coordinator memory per member: %s members (%s groups × %d, %d shards each) joined and settled, then %d steady heartbeat rounds of every member (in-process host, `actors/host` `TestMemoryPerMemberBenchmark`), runtime defaults (GOGC 100, no memory limit) | %s | the same process before the members joined: RSS %.1f MiB, heap in use %.1f MiB | | steady RSS mean ≤ %.0f KiB per member | %s |\n",
		thousands(m.Members), thousands(m.Groups), m.Members/max(m.Groups, 1), m.Shards, m.SteadyRounds, figures(m), m.BeforeRSSMiB, m.BeforeHeapMiB, memTargetKiB, v)
	fmt.Fprintf(b, "| the same with a memory limit of %s (`GOMEMLIMIT`, what `runtime.memory-limit` sets) | %s | the same process before the members joined: RSS %.1f MiB, heap in use %.1f MiB | steady RSS mean %.2f× that without a limit | steady RSS mean ≤ %.0f KiB per member | %s |\n",
		l.MemoryLimit, figures(l), l.BeforeRSSMiB, l.BeforeHeapMiB, l.SteadyRSSMean/m.SteadyRSSMean, memTargetKiB, verdict(okLimited))
	for _, nodes := range []int{1, 2} {
		base, busy := h.idle(nodes, 0), h.idle(nodes, idleGroups)
		setup := "single node"
		if nodes == 2 {
			setup = "2-node in-process cluster, every member heartbeating through both nodes in turn (half the heartbeats forwarded)"
		}
		// O(nodes): the commands follow the node-record renewals (one per node every lease/18),
		// not the groups; a window holds one renewal more or less, so commands per renewal are
		// compared. One read per group per confirmation round would add 1,000 commands per
		// renewal.
		perRenewal := func(r idleResult) float64 { return float64(r.Commands) / float64(max(r.Stats["evalsha"], 1)) }
		ratio := perRenewal(busy) / perRenewal(base)
		fmt.Fprintf(b, "| idle Redis reads, %s: %s active idle groups (1 steady member each, default 3 s heartbeat, 15 s lease), `INFO commandstats` over %.0f s, commands inside scripts included (`actors/host` `TestIdleGroupsRedisReads*Benchmark`) | %.1f commands/s (%d commands, %d renewals: %.1f per renewal) | the same setup with no group: %.1f commands/s (%d commands, %d renewals: %.1f per renewal) | commands/s %.2f×, per renewal %.2f× | O(nodes), not O(groups): per renewal ≤ 1.2× | %s |\n",
			setup, thousands(idleGroups), busy.WindowSeconds, busy.CommandsPerSec, busy.Commands, busy.Stats["evalsha"], perRenewal(busy),
			base.CommandsPerSec, base.Commands, base.Stats["evalsha"], perRenewal(base), busy.CommandsPerSec/base.CommandsPerSec, ratio, verdict(ratio <= 1.2))
	}
}

// thousands formats n with thousands separators (100,000).
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
