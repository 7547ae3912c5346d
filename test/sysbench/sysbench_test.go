package sysbench

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/internal/tlsfiles/testca"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// TestSystemBenchmark is skipped unless RSC_BENCH_SYSTEM=1 (make bench,
// make bench-quick). With RSC_BENCH_DOCS=path it rewrites the whole-system
// section of that file (docs/BENCHMARKS.md).
func TestSystemBenchmark(t *testing.T) {
	if os.Getenv("RSC_BENCH_SYSTEM") == "" {
		t.Skip("set RSC_BENCH_SYSTEM=1 (make bench or make bench-quick) to run the whole-system benchmark")
	}
	quick := os.Getenv("RSC_BENCH_QUICK") != ""
	p := full
	if quick {
		p = short
	}
	only := selected(os.Getenv("RSC_BENCH_ONLY"))
	if only != nil && os.Getenv("RSC_BENCH_DOCS") != "" {
		t.Fatal("RSC_BENCH_ONLY runs part of the suite: it cannot rewrite the docs section (unset RSC_BENCH_DOCS)")
	}
	start := time.Now()
	rep := &report{Quick: quick, Params: p}
	if only.has("load") {
		rep.Load = runLoad(t, p, false)
	}
	if only.has("tls") {
		// The same load through the HTTPS front (http.tls.*), with its own
		// bare-fiber baseline rounds: the TLS cost beside the plaintext one.
		rep.LoadTLS = runLoad(t, p, true)
	}
	if only.has("handoff") {
		// Hand-offs at a 1 s interval: at 200 ms the short interval's 50 ms floor, not the rule, sets the figure.
		ho := p
		ho.Interval, ho.LeaseTTL = time.Second, 10*time.Second
		rep.Handoff, rep.HandoffMailbox = runHandoffs(t, ho) // over HTTP, then over the mailbox
	}
	if only.has("failover") {
		rep.Failover = runEvents(t, p, "failover", 8)
	}
	if only.has("converge") {
		rep.Converge = runEvents(t, p, "converge", 1024)
	}
	if only.has("reshard") {
		rep.Reshard = runReshard(t, p)
	}
	if only.has("host") {
		rep.Host = runHost(t, p)
	}
	rep.Took = time.Since(start).Round(time.Second)
	text := rep.markdown()
	t.Log("\n" + text)
	if path := os.Getenv("RSC_BENCH_DOCS"); path != "" {
		if err := rewriteSection(path, text); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the whole-system section of %s", path)
	}
}

// scenarios selects parts of the suite (RSC_BENCH_ONLY=load,reshard); nil
// selects all of them.
type scenarios map[string]bool

func selected(env string) scenarios {
	if strings.TrimSpace(env) == "" {
		return nil
	}
	s := scenarios{}
	for _, name := range strings.Split(env, ",") {
		s[strings.TrimSpace(name)] = true
	}
	return s
}

func (s scenarios) has(name string) bool { return s == nil || s[name] }

// params sizes one run of the suite.
type params struct {
	Rounds      int           // interleaved load rounds per target
	Window      time.Duration // one load round
	Cycles      int           // hand-offs / crashes
	Interval    time.Duration // heartbeat interval of the event scenarios
	LeaseTTL    time.Duration
	ConvMembers int
	MemGroups   int           // groups of 100 members of the memory figure
	MemLimit    string        // GOMEMLIMIT of its second run
	IdleWindow  time.Duration // window of the idle-reads figure
}

var (
	full = params{Rounds: 4, Window: 8 * time.Second, Cycles: 20, Interval: 200 * time.Millisecond, LeaseTTL: 2 * time.Second, ConvMembers: 100,
		MemGroups: 1000, MemLimit: "320MiB", IdleWindow: 10 * time.Second}
	short = params{Rounds: 2, Window: 3 * time.Second, Cycles: 6, Interval: 200 * time.Millisecond, LeaseTTL: 2 * time.Second, ConvMembers: 100,
		MemGroups: 200, MemLimit: "80MiB", IdleWindow: 3 * time.Second}
)

const (
	loadGroups  = 10
	loadMembers = 1000
	loadShards  = 64
	loadConns   = 64
)

func binary(t *testing.T, pkg string) string {
	t.Helper()
	bin, err := harness.BinaryOf(pkg)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// coordinator starts redis-server and a coordinator with the given timings
// and creates stream "bench" with shards shards.
// extra adds (or overrides) environment variables of the coordinator.
func coordinator(t *testing.T, interval, lease time.Duration, shards int, extra ...string) *harness.Coordinator {
	return coordinatorTLS(t, nil, interval, lease, shards, extra...)
}

// coordinatorTLS is coordinator serving HTTPS when clientTLS is set (extra
// then names the http.tls files).
func coordinatorTLS(t *testing.T, clientTLS *tls.Config, interval, lease time.Duration, shards int, extra ...string) *harness.Coordinator {
	redis := redistest.Start(t)
	env := map[string]string{
		"RSC_LOG_LEVEL":                       "warn",
		"RSC_COORDINATION_HEARTBEAT_INTERVAL": interval.String(),
		"RSC_COORDINATION_MEMBER_LEASE_TTL":   lease.String(),
		"RSC_COORDINATION_REBALANCE_TIMEOUT":  "30s",
		"RSC_LIMITS_JOINS_PER_SECOND":         "10000",
		"RSC_LIMITS_JOIN_BURST":               "10000",
		"RSC_DEFAULTS_INITIAL_SHARD_COUNT":    fmt.Sprint(shards),
	}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	c := harness.StartCoordinator(t, harness.Options{RedisAddr: redis.Addr(), Env: env, ClientTLS: clientTLS})
	admin := harness.NewClient(c.URL())
	admin.HTTP = c.HTTPClient()
	admin.CreateStream(t, "bench", shards)
	return c
}

// sim runs the member simulator and decodes its result into out.
func sim(t *testing.T, out any, args ...string) {
	t.Helper()
	cmd := exec.Command(binary(t, "./test/sysbench/simmembers"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("simmembers %v: %v\n%s", args, err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("simmembers output %q: %v", stdout.String(), err)
	}
}

type loadRound struct {
	Target     string  `json:"target"`
	Round      int     `json:"round"`
	Heartbeats int64   `json:"heartbeats"`
	Failed     int64   `json:"failed"`
	Seconds    float64 `json:"seconds"`
	CPUMicros  float64 `json:"cpuMicrosPerHeartbeat"`
}

type loadResult struct {
	Rounds      []loadRound `json:"rounds"`
	Coordinator float64     `json:"coordinatorCpuMicrosPerHeartbeat"`
	Baseline    float64     `json:"baselineCpuMicrosPerHeartbeat"`
	Ratio       float64     `json:"ratio"`
}

func runLoad(t *testing.T, p params, overTLS bool) *loadResult {
	// A long interval and lease: the members stay idle while the baseline has its round.
	var c *harness.Coordinator
	var tlsArgs []string
	if overTLS {
		ca := testca.New(t, "sysbench HTTPS CA")
		f := ca.Write(t, t.TempDir(), "server", ca.Issue(t, "coordinator", testca.Options{}))
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(ca.CertPEM)
		c = coordinatorTLS(t, &tls.Config{RootCAs: pool}, 10*time.Second, 2*time.Minute, loadShards,
			"RSC_HTTP_TLS_CERT_FILE", f.Cert, "RSC_HTTP_TLS_KEY_FILE", f.Key)
		tlsArgs = []string{"-ca-file", f.CA}
	} else {
		c = coordinator(t, 10*time.Second, 2*time.Minute, loadShards)
	}
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	bare := exec.Command(binary(t, "./test/sysbench/barefiber"), "-addr", fmt.Sprintf("127.0.0.1:%d", port))
	if err := bare.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bare.Process.Kill(); _ = bare.Wait() })
	for i := 0; ; i++ {
		if r, err := http.Get(base + "/health"); err == nil {
			r.Body.Close()
			break
		}
		if i > 200 {
			t.Fatal("barefiber did not start")
		}
		time.Sleep(25 * time.Millisecond)
	}
	var res loadResult
	if path := os.Getenv("RSC_BENCH_CPUPROFILE"); path != "" {
		stop := profile(t, c.Pid(), path)
		defer stop()
	}
	sim(t, &res, append(tlsArgs, "-scenario", "load", "-url", c.URL(), "-baseline", base,
		"-coord-pid", fmt.Sprint(c.Pid()), "-baseline-pid", fmt.Sprint(bare.Process.Pid),
		"-groups", fmt.Sprint(loadGroups), "-members", fmt.Sprint(loadMembers), "-shards", fmt.Sprint(loadShards),
		"-conns", fmt.Sprint(loadConns), "-rounds", fmt.Sprint(p.Rounds), "-window", p.Window.String())...)
	for _, r := range res.Rounds {
		t.Logf("BENCH load tls=%v round=%d target=%s heartbeats=%d failed=%d rate=%.0f/s cpu=%.1fµs/heartbeat",
			overTLS, r.Round, r.Target, r.Heartbeats, r.Failed, float64(r.Heartbeats)/r.Seconds, r.CPUMicros)
	}
	c.Kill()
	return &res
}

// runEvents runs one event-driven scenario against a fresh coordinator.
func runEvents(t *testing.T, p params, scenario string, shards int) map[string]json.RawMessage {
	c := coordinator(t, p.Interval, p.LeaseTTL, shards)
	out := map[string]json.RawMessage{}
	sim(t, &out, "-scenario", scenario, "-url", c.URL(), "-shards", fmt.Sprint(shards),
		"-cycles", fmt.Sprint(p.Cycles), "-members", fmt.Sprint(p.ConvMembers))
	for k, v := range out {
		t.Logf("BENCH %s %s=%s", scenario, k, v)
	}
	c.Kill()
	return out
}

type latencies struct {
	Samples      int     `json:"samples"`
	IntervalMs   int64   `json:"intervalMs"`
	MedianMs     float64 `json:"medianMs"`
	P90Ms        float64 `json:"p90Ms"`
	MaxMs        float64 `json:"maxMs"`
	MedianPerInt float64 `json:"medianPerInterval"`
	P90PerInt    float64 `json:"p90PerInterval"`
	MaxPerInt    float64 `json:"maxPerInterval"`
}

type report struct {
	Quick  bool
	Params params
	Took   time.Duration
	Load   *loadResult
	// LoadTLS is the load scenario through the HTTPS front (http.tls.*).
	LoadTLS *loadResult
	Handoff map[string]json.RawMessage
	// HandoffMailbox: the hand-off scenario with members on the Redis mailbox (handoff_test.go).
	HandoffMailbox map[string]json.RawMessage
	Failover       map[string]json.RawMessage
	Converge       map[string]json.RawMessage
	Reshard        map[string]json.RawMessage
	Host           *hostFigures
}

func lat(m map[string]json.RawMessage, k string) latencies {
	var l latencies
	_ = json.Unmarshal(m[k], &l)
	return l
}

func num(m map[string]json.RawMessage, k string) float64 {
	var f float64
	_ = json.Unmarshal(m[k], &f)
	return f
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

func (r *report) markdown() string {
	var b strings.Builder
	mode, cmd := "full", "make bench"
	if r.Quick {
		mode, cmd = "quick", "make bench-quick"
	}
	host, _ := os.Hostname()
	fmt.Fprintf(&b, "Generated by `%s` (%s run, %s, %s) on %s: %s, %d CPUs (GOMAXPROCS %d), %s %s/%s. "+
		"Real processes on loopback: redis-server, the coordinator binary, and the simulated members in a process of "+
		"their own (`test/sysbench/simmembers`); a fresh redis-server and coordinator per scenario. Other work on the "+
		"machine shares its cores, so absolute figures vary between runs; each figure's baseline comes from the same run.\n\n",
		cmd, mode, time.Now().UTC().Format("2006-01-02 15:04 UTC"), r.Took, host, cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0),
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
	ho, hl := lat(r.Handoff, "moveToJoiningMember"), lat(r.Handoff, "moveAfterLeave")
	fo := lat(r.Failover, "crashToOwnedElsewhere")
	iv := time.Duration(fo.IntervalMs) * time.Millisecond
	ttl := r.Params.LeaseTTL
	foBound := float64(ttl+iv) / float64(ttl)
	toTTL := func(ms float64) float64 { return ms / float64(ttl.Milliseconds()) }
	b.WriteString("| figure | measured | baseline (same run) | ratio | target | |\n|---|---|---|---|---|---|\n")
	if l := r.Load; l != nil {
		fmt.Fprintf(&b, "| coordinator CPU per steady heartbeat (%d members, %d groups × %d shards, %d keep-alive connections, %d interleaved rounds × %s per target) | %.1f µs | bare fiber handler decoding and encoding the same JSON with encoding/json (`test/sysbench/barefiber`): %.1f µs | %.2f× | ≤ 1.3× | %s |\n",
			loadMembers, loadGroups, loadShards, loadConns, r.Params.Rounds, r.Params.Window, l.Coordinator, l.Baseline, l.Ratio, verdict(l.Ratio <= 1.3))
	}
	if l := r.LoadTLS; l != nil {
		line := fmt.Sprintf("| the same through the HTTPS front (`http.tls.*`, TLS 1.3, keep-alive connections) | %.1f µs | bare fiber, plaintext: %.1f µs | %.2f× |", l.Coordinator, l.Baseline, l.Ratio)
		if p := r.Load; p != nil {
			line += fmt.Sprintf(" %.2f× the plaintext coordinator's CPU per heartbeat | |\n", l.Coordinator/p.Coordinator)
		} else {
			line += " | |\n"
		}
		b.WriteString(line)
	}
	if r.Handoff != nil {
		fmt.Fprintf(&b, "| hand-off to a joining member: old owner's release → new owner's response lists the shard (%d samples) | median %.0f ms, p90 %.0f ms, max %.0f ms | heartbeat interval %d ms | median %.2f×, p90 %.2f× | median ≤ 0.2×, p90 ≤ 0.5× | %s |\n",
			ho.Samples, ho.MedianMs, ho.P90Ms, ho.MaxMs, ho.IntervalMs, ho.MedianPerInt, ho.P90PerInt, verdict(ho.MedianPerInt <= 0.2 && ho.P90PerInt <= 0.5))
		fmt.Fprintf(&b, "| hand-off after a leave: leave → another member's response lists the shard (%d samples) | median %.0f ms, p90 %.0f ms, max %.0f ms | heartbeat interval %d ms | median %.2f×, p90 %.2f× | (none; see below) | |\n",
			hl.Samples, hl.MedianMs, hl.P90Ms, hl.MaxMs, hl.IntervalMs, hl.MedianPerInt, hl.P90PerInt)
		b.WriteString(mailboxHandoffRow(r))
	}
	if r.Failover != nil {
		fmt.Fprintf(&b, "| failover: crashed member's last heartbeat → all its shards owned elsewhere (%d crashes, 4 members, 8 shards) | median %.0f ms, p90 %.0f ms, max %.0f ms | lease TTL %s (+ 1 interval = %.2f× TTL) | median %.2f×, p90 %.2f×, max %.2f× TTL | ≤ TTL + 1 interval | %s |\n",
			fo.Samples, fo.MedianMs, fo.P90Ms, fo.MaxMs, ttl, foBound, toTTL(fo.MedianMs), toTTL(fo.P90Ms), toTTL(fo.MaxMs), verdict(fo.MaxMs <= float64((ttl+iv).Milliseconds())))
	}
	if r.Converge != nil {
		fmt.Fprintf(&b, "| convergence: %v members join 1 group of %v shards at once → every shard owned / group STABLE | %.2f s / %.2f s (%.1f heartbeat intervals; heartbeats per member: max %v, mean %.1f) | heartbeat interval %v ms | | | |\n",
			num(r.Converge, "members"), num(r.Converge, "shards"), num(r.Converge, "secondsAllOwned"), num(r.Converge, "secondsStable"),
			num(r.Converge, "intervalsStable"), num(r.Converge, "maxHeartbeatsPerMember"), num(r.Converge, "meanHeartbeatsPerMember"), num(r.Converge, "intervalMs"))
	}
	if r.Reshard != nil {
		var out, in scaleFigures
		_ = json.Unmarshal(r.Reshard["scaleOut"], &out)
		_ = json.Unmarshal(r.Reshard["scaleIn"], &in)
		groups, per := num(r.Reshard, "groups"), num(r.Reshard, "membersPerGroup")
		fmt.Fprintf(&b, "| reshard: a stream with %v groups × %v members scaled %d → %d shards: scale request → every group's target covers %d shards / every shard owned / migration DEPRECATED | %.2f s / %.2f s / %.2f s | routing grace %s, driver poll %s, heartbeat interval %s | | | |\n",
			groups, per, out.From, out.To, out.To, out.TargetsMs/1000, out.OwnedMs/1000, out.DeprecatedMs/1000, reshardGrace, reshardPoll, r.Params.Interval)
		fmt.Fprintf(&b, "| reshard: the same stream scaled back %d → %d, its removed shards empty (the members consume nothing): scale request → targets cover %d shards / members own exactly shards 0…%d / migration DEPRECATED | %.2f s / %.2f s / %.2f s | routing grace %s, driver poll %s | | | |\n",
			in.From, in.To, in.To, in.To-1, in.TargetsMs/1000, in.OwnedMs/1000, in.DeprecatedMs/1000, reshardGrace, reshardPoll)
	}
	if r.Host != nil {
		r.Host.markdown(&b)
	}
	if l := r.Load; l != nil {
		b.WriteString("\nLoad rounds (interleaved, CPU from `/proc/<pid>/stat` of each server process):\n\n| round | target | heartbeats | failed | rate | CPU µs / heartbeat |\n|---|---|---|---|---|---|\n")
		for _, x := range l.Rounds {
			fmt.Fprintf(&b, "| %d | %s | %d | %d | %.0f/s | %.1f |\n", x.Round, x.Target, x.Heartbeats, x.Failed, float64(x.Heartbeats)/x.Seconds, x.CPUMicros)
		}
	}
	if r.Reshard != nil {
		b.WriteString("\nReshard migration steps (ms from the scale request, as the migration records them):\n\n| scale | steps |\n|---|---|\n")
		for _, k := range []string{"scaleOut", "scaleIn"} {
			var f scaleFigures
			_ = json.Unmarshal(r.Reshard[k], &f)
			var steps []string
			for _, s := range f.Steps {
				steps = append(steps, fmt.Sprintf("%s %.0f", s.State, s.Ms))
			}
			fmt.Fprintf(&b, "| %d → %d | %s |\n", f.From, f.To, strings.Join(steps, ", "))
		}
	}
	fmt.Fprintf(&b, "\nEvent scenarios: members follow each response's `heartbeatIntervalMs` like the SDK (release a revoked shard at once, then heartbeat at once); rebalance timeout 30s. "+
		"Failover and convergence: heartbeat interval %s, lease TTL %s (the short interval's 50 ms floor is 0.25 of it). Hand-offs: interval 1s, lease TTL 10s.\n",
		r.Params.Interval, ttl)
	return b.String()
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "model name") {
			if i := strings.IndexByte(line, ':'); i > 0 {
				return strings.TrimSpace(line[i+1:])
			}
		}
	}
	return "unknown CPU"
}

const (
	beginMarker = "<!-- sysbench:begin (generated by make bench; do not edit by hand) -->"
	endMarker   = "<!-- sysbench:end -->"
)

// rewriteSection replaces the text between the markers of path with text.
func rewriteSection(path, text string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	i, j := strings.Index(s, beginMarker), strings.Index(s, endMarker)
	if i < 0 || j < i {
		return fmt.Errorf("%s: markers %q … %q not found", path, beginMarker, endMarker)
	}
	s = s[:i+len(beginMarker)] + "\n" + text + s[j:]
	return os.WriteFile(path, []byte(s), 0o644)
}
