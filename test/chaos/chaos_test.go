package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/test/harness"
	"github.com/redisstream/coordinator/test/recorder"
)

// config is one chaos run.
type config struct {
	Seed         int64
	Duration     time.Duration // fault phase
	Prefix       string
	Group        string
	Shards       int
	Members      int
	Proxied      int // members m0…m(Proxied-1) heartbeat through the slow proxies
	Coordinators int
	Rate         int // produced entries per second
	Work         time.Duration
	Heartbeat    time.Duration
	Lease        time.Duration
	Rebalance    time.Duration
	MaxDown      int // members killed or paused at once
	// Transport is how members heartbeat: "http" (default) or "redis" (the
	// Redis mailbox; the coordinators run with mailbox.enabled and no
	// member heartbeats through the slow proxies).
	Transport string
	// ReshardMin and ReshardMax bound the shard counts reshard operations
	// scale to (FaultReshard); ReshardMax 0: no reshard operations.
	ReshardMin, ReshardMax int
}

const (
	defaultSeed     = 20261129
	defaultDuration = 60 * time.Second
)

func loadConfig(t *testing.T) config {
	cfg := config{
		Seed: defaultSeed, Duration: defaultDuration,
		Prefix: "orders", Group: "workers", Shards: 12, Members: 6, Proxied: 2, Coordinators: 1,
		Rate: 100, Work: 5 * time.Millisecond,
		Heartbeat: 250 * time.Millisecond, Lease: 2 * time.Second, Rebalance: 4 * time.Second,
		MaxDown: 2, ReshardMin: 4, ReshardMax: 16,
	}
	if v := os.Getenv("RSC_CHAOS_SEED"); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("RSC_CHAOS_SEED=%q: %v", v, err)
		}
		cfg.Seed = s
	}
	if v := os.Getenv("RSC_CHAOS_COORDINATORS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("RSC_CHAOS_COORDINATORS=%q: want a number of coordinator processes, at least 1 (%v)", v, err)
		}
		cfg.Coordinators = n
	}
	cfg.Transport = "http"
	if v := os.Getenv("RSC_CHAOS_TRANSPORT"); v != "" {
		if v != "http" && v != "redis" {
			t.Fatalf("RSC_CHAOS_TRANSPORT=%q: want http or redis (members heartbeat through the Redis mailbox)", v)
		}
		cfg.Transport = v
	}
	if cfg.Transport == "redis" {
		cfg.Proxied = 0 // the slow proxies are on the HTTP path
	}
	if v := os.Getenv("RSC_CHAOS_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 10*time.Second {
			t.Fatalf("RSC_CHAOS_DURATION=%q: want a Go duration of at least 10s (%v)", v, err)
		}
		cfg.Duration = d
	}
	hideChaosEnv(t)
	return cfg
}

// chaosEnv are the settings of this test. The coordinator refuses to start
// on an RSC_* variable it does not know, and the harness passes the test's
// environment to it, so they are removed from the environment once read
// (and put back at cleanup).
var chaosEnv = []string{"RSC_CHAOS_SEED", "RSC_CHAOS_DURATION", "RSC_CHAOS_REPORT", "RSC_CHAOS_COORDINATORS", "RSC_CHAOS_TRANSPORT"}

func hideChaosEnv(t *testing.T) {
	for _, k := range chaosEnv {
		if v, ok := os.LookupEnv(k); ok {
			_ = os.Unsetenv(k)
			t.Cleanup(func() { _ = os.Setenv(k, v) })
		}
	}
}

// Report is the machine-readable outcome of a chaos run.
type Report struct {
	Seed              int64          `json:"seed"`
	Revision          string         `json:"revision"` // git describe --always --dirty of the tree under test
	Duration          string         `json:"duration"` // fault phase
	WallSeconds       float64        `json:"wallSeconds"`
	StartedAt         string         `json:"startedAt"`
	Coordinators      int            `json:"coordinators"`
	Transport         string         `json:"transport"` // how members heartbeat: http or redis (the mailbox)
	Members           int            `json:"members"`
	ProxiedMembers    int            `json:"proxiedMembers"`
	Shards            int            `json:"shards"`
	ProducerRate      int            `json:"producerRatePerSecond"`
	HeartbeatInterval string         `json:"heartbeatInterval"`
	LeaseTTL          string         `json:"memberLeaseTtl"`
	RebalanceTimeout  string         `json:"rebalanceTimeout"`
	FaultsByType      map[string]int `json:"faultsByType"`
	FaultsTotal       int            `json:"faultsTotal"`
	Faults            []injected     `json:"faults"`

	Produced  int `json:"produced"`
	Processed int `json:"processed"`
	Lost      int `json:"lost"`
	// AckedUnrecorded are entries whose handler ran and which Redis shows
	// acknowledged (not pending), but whose ACKED record never came: the
	// member was killed, or Redis stopped, between the XACK reaching Redis
	// and the member reading its reply. They count as processed, and are
	// excused only when such a fault followed the handler within 2 s.
	AckedUnrecorded int `json:"ackedUnrecorded"`
	// LateAckConfirmations are ACKED records the SDK emits when a worker
	// starts and settles an XACK whose reply was lost earlier: they carry the
	// old epoch and the time of the confirmation, not of the XACK, so they
	// count for loss but not for overlap windows or the pause checks.
	LateAckConfirmations   int      `json:"lateAckConfirmations"`
	AckedUnrecordedEntries []string `json:"ackedUnrecordedEntries,omitempty"`
	LostSeqs               []int64  `json:"lostSeqs,omitempty"`
	Duplicates             int      `json:"duplicates"`
	HandOffs               int      `json:"handOffs"`
	OverlapWindows         int      `json:"overlapWindows"`
	Overlaps               []string `json:"overlaps"`
	// FenceOverlapWindows counts double-processing windows found in the
	// fence history rather than in ack times (recorder.Report.FenceOverlaps):
	// a fencing token acknowledged with by two members, a member acking with
	// a token older than one another member already acked with, or a token
	// above the shard's final fence token in Redis. FencedAcks is how many
	// acknowledgements carried a token (the figure's sample size).
	FenceOverlapWindows int      `json:"fenceOverlapWindows"`
	FenceOverlaps       []string `json:"fenceOverlaps"`
	FencedAcks          int      `json:"fencedAcks"`
	PublishRetries      int64    `json:"publishRetries"`
	StreamEntries       int64    `json:"streamEntries"`
	RedisPendingEnd     int64    `json:"redisPendingAtEnd"`
	RedisLagEnd         int64    `json:"redisLagAtEnd"`

	monitorFigures
	reshardFigures

	Pauses                 int      `json:"pauses"`
	PausesHoldingShards    int      `json:"pausesHoldingShards"`
	PausesSelfFenced       int      `json:"pausesSelfFenced"`
	PausesWithoutFence     []string `json:"pausesWithoutFence"`
	AckedAfterReassignment []string `json:"ackedAfterReassignment"`
	// StaleAcks are acknowledgements by a paused member, after it was
	// continued, of entries the new owner had already claimed and handled:
	// proof of an XACK sent after the shard was reassigned.
	StaleAcks []string       `json:"staleAcks"`
	Events    map[string]int `json:"events"`

	// SupervisorRestarts counts the coordinator processes that exited on
	// their own (a node the cluster evicted, typically after a pause past
	// its tolerance, exits with code 3) and that the test's supervisor
	// started again, as systemd would; the list says when, after which
	// fault and why. ClusterFormedAtEnd: after the settle, every node was
	// running and every node saw exactly the running nodes (cluster runs).
	SupervisorRestarts    int          `json:"supervisorRestarts"`
	SupervisorRestartList []supervised `json:"supervisorRestartList"`
	ClusterFormedAtEnd    *bool        `json:"clusterFormedAtEnd,omitempty"`
	// GracefulStops are the SIGTERMs of coordinator-restart faults: the
	// time from SIGTERM to exit. A node still running 15 s after SIGTERM
	// is killed, and that fails the run.
	GracefulStops []gracefulStop `json:"gracefulStops"`

	// LongestUnownedNoInfraMs is the longest unowned gap that did not
	// overlap a Redis or coordinator fault (from injection to one lease
	// after recovery): the liveness figure for member faults alone.
	LongestUnownedNoInfraMs    int64  `json:"longestUnownedGapMemberFaultsOnlyMs"`
	LongestUnownedNoInfraShard int    `json:"longestUnownedGapMemberFaultsOnlyShard"`
	LongestUnownedNoInfraFrom  string `json:"longestUnownedGapMemberFaultsOnlyFrom,omitempty"`

	// LongestAckGapMs is the data-plane view of unavailability: the longest
	// time, while the producer ran, between two acknowledgements on one
	// shard (any member). At 100 entries/s over 12 shards the steady-state
	// gap is a few hundred milliseconds.
	LongestAckGapMs    int64  `json:"longestAckGapMs"`
	LongestAckGapShard int    `json:"longestAckGapShard"`
	LongestAckGapFrom  string `json:"longestAckGapFrom,omitempty"`

	SettleSeconds float64  `json:"settleSeconds"`
	DrainSeconds  float64  `json:"drainSeconds"`
	Passed        bool     `json:"passed"`
	Failures      []string `json:"failures"`
}

// TestChaos runs the data plane under a seeded fault schedule and checks
// that nothing is lost, no shard is processed by two members at once,
// epochs never go backwards and the coordinator never reports an invariant
// violation. See docs/RELIABILITY.md. `make chaos` runs it long, with a
// 3-node cluster (RSC_CHAOS_COORDINATORS); `go test` runs 60 s of faults
// against one coordinator.
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos run: not in -short")
	}
	reportPath := os.Getenv("RSC_CHAOS_REPORT")
	runChaos(t, loadConfig(t), reportPath)
}

// clusterDuration is the fault phase of TestChaosCluster: long enough for
// the first faults to cover every kind once, node faults included, and for
// a pause past the cluster's tolerance (an eviction, then a supervisor
// restart) with the default seed, short enough that the package stays
// within 90 s of its single-node runtime in `make test`.
const clusterDuration = 40 * time.Second

// TestChaosCluster is the short chaos run against a 3-node actor host
// cluster: node kill, pause (with eviction and supervisor restart) and
// graceful restart among the faults. RSC_CHAOS_SEED and RSC_CHAOS_DURATION
// apply; the report goes to the test's temporary directory.
func TestChaosCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos run: not in -short")
	}
	durationSet := os.Getenv("RSC_CHAOS_DURATION") != ""
	cfg := loadConfig(t)
	cfg.Coordinators = 3
	if !durationSet {
		cfg.Duration = clusterDuration
	}
	runChaos(t, cfg, "")
}

// runChaos is one chaos run of cfg; the report is written to reportPath
// (the test's temporary directory when empty).
func runChaos(t *testing.T, cfg config, reportPath string) {
	wallStart := time.Now()
	faults := Generate(ScheduleConfig{
		Seed: cfg.Seed, Duration: cfg.Duration, Lease: cfg.Lease,
		Members: memberIDs(cfg.Members), Coordinators: cfg.Coordinators, Proxies: cfg.Coordinators,
		MaxMembersDown: cfg.MaxDown, MaxCoordinatorsDown: max(1, cfg.Coordinators-1), // one node always up
	})
	if cfg.ReshardMax > 0 {
		faults = append(faults, GenerateReshards(ReshardConfig{Seed: cfg.Seed, Duration: cfg.Duration, Start: cfg.Shards,
			Min: cfg.ReshardMin, Max: cfg.ReshardMax})...)
		sort.SliceStable(faults, func(i, j int) bool { return faults[i].At < faults[j].At })
	}
	t.Logf("chaos seed %d, fault phase %s, %d faults:\n%s", cfg.Seed, cfg.Duration, len(faults), FormatSchedule(faults))

	c := startCluster(t, cfg)
	mon := newMonitor(c.coordinatorURLs(), cfg.Prefix, cfg.Group, cfg.Shards, cfg.Lease)
	stopMon := make(chan struct{})
	monDone := make(chan struct{})
	go func() { defer close(monDone); mon.run(200*time.Millisecond, stopMon) }()
	stopMonitor := func() {
		select {
		case <-stopMon:
		default:
			close(stopMon)
			<-monDone
		}
	}
	t.Cleanup(stopMonitor)
	// The supervisor restarts nodes that exit on their own (evicted). It
	// stops before the harness kills every node at cleanup.
	stopSup := make(chan struct{})
	supDone := make(chan struct{})
	go func() { defer close(supDone); c.supervise(100*time.Millisecond, stopSup) }()
	stopSupervisor := func() {
		select {
		case <-stopSup:
		default:
			close(stopSup)
			<-supDone
		}
	}
	t.Cleanup(stopSupervisor)

	// Warm-up: every shard owned before the first fault.
	waitUntil(t, 30*time.Second, "every shard owned at start", func() bool { return mon.settled(0) })
	c.startProducer(cfg.Rate)
	prodStart := time.Now()

	ran := c.runSchedule(faults)

	// Settle: faults are over (the schedule recovers every fault by its
	// end); wait until every shard has been owned, with nothing revoking,
	// for a few heartbeats.
	settleStart := time.Now()
	// No migration running any more (the last reshard operation is
	// planned well before the end, but a refused or slow one may still
	// drain), and the shard count the end-of-run checks use.
	migs, finalShards, migErr := c.waitMigrations(60 * time.Second)
	if migErr == nil {
		c.shards = finalShards
	}
	migSettleSecs := time.Since(settleStart).Seconds()
	settled := waitFor(45*time.Second, func() bool { return mon.settled(4 * cfg.Heartbeat) })
	var formedErr error
	if c.hc != nil { // every node back and in one cluster (the supervisor still runs)
		formedErr = waitFormed(c, 45*time.Second)
	}
	settleSecs := time.Since(settleStart).Seconds()
	time.Sleep(time.Second) // produce a little more on the settled group
	c.stopProducer()
	prodEnd := time.Now()
	produced := c.prod.Produced()

	drainStart := time.Now()
	ctx := context.Background()
	var pending, lag, entries int64
	drained := waitForEvery(45*time.Second, 500*time.Millisecond, func() bool {
		if !everyHandledOrAcked(c.rec, produced) {
			return false
		}
		var err error
		pending, lag, entries, err = c.redisBacklog(ctx)
		return err == nil && pending == 0 && lag == 0
	})
	pending, lag, entries, _ = c.redisBacklog(ctx)
	drainSecs := time.Since(drainStart).Seconds()
	stopMonitor()
	stopSupervisor()
	mon.finish()

	// Lines of a shard retired and created again are checked per
	// incarnation (recorder.Incarnations).
	var incErr error
	if migs, migErr = c.migrationsOf(ctx); migErr == nil {
		c.inc, incErr = c.incarnationsOf(ctx, migs.Migrations)
	}
	lines := c.inc.Relabel(c.rec.Lines())
	// Overlap windows and the pause checks use the acknowledgements as they
	// happened; late confirmations (see lateConfirmations) are left out.
	timed, late := recorder.WithoutLateConfirmations(lines)
	rr := checkRecords(ctx, t, c, timed, produced)
	rep := Report{
		Seed: cfg.Seed, Revision: revision(), Duration: cfg.Duration.String(), StartedAt: wallStart.UTC().Format(time.RFC3339),
		Coordinators: cfg.Coordinators, Transport: cfg.Transport, Members: cfg.Members, ProxiedMembers: cfg.Proxied, Shards: cfg.Shards,
		ProducerRate: cfg.Rate, HeartbeatInterval: cfg.Heartbeat.String(), LeaseTTL: cfg.Lease.String(),
		RebalanceTimeout: cfg.Rebalance.String(), FaultsByType: map[string]int{}, FaultsTotal: len(ran), Faults: ran,
		Produced: rr.Produced, Processed: rr.Processed, Lost: rr.Lost, LostSeqs: rr.LostSeqs,
		Duplicates: rr.Duplicates, HandOffs: rr.HandOffs, OverlapWindows: len(rr.Overlaps), Overlaps: rr.Overlaps,
		FenceOverlapWindows: len(rr.FenceOverlaps), FenceOverlaps: rr.FenceOverlaps, FencedAcks: rr.FencedAcks,
		PublishRetries: c.prod.Failures(), StreamEntries: entries, RedisPendingEnd: pending, RedisLagEnd: lag,
		monitorFigures: mon.figures(), Events: map[string]int{}, LateAckConfirmations: late,
		SettleSeconds: round2(settleSecs), DrainSeconds: round2(drainSecs),
		PausesWithoutFence: []string{}, AckedAfterReassignment: []string{}, Failures: []string{},
		SupervisorRestartList: c.supervisorRestarts(),
	}
	rep.SupervisorRestarts = len(rep.SupervisorRestartList)
	c.supMu.Lock()
	rep.GracefulStops = append([]gracefulStop{}, c.stops...)
	c.supMu.Unlock()
	if c.hc != nil {
		formed := formedErr == nil
		rep.ClusterFormedAtEnd = &formed
	}
	for _, k := range ReportedFaultKinds {
		rep.FaultsByType[string(k)] = 0
	}
	rep.ReshardOutcomes = map[string]int{}
	for _, f := range ran {
		if f.Kind == FaultReshard {
			rep.ReshardOutcomes[f.Outcome]++
		}
	}
	rep.Migrations = summarize(migs.Migrations)
	rep.FinalShardCount = c.shards
	rep.MigrationsSettleSeconds = round2(migSettleSecs)
	for _, f := range ran {
		rep.FaultsByType[string(f.Kind)]++
	}
	for _, l := range lines {
		if l.Kind == "event" {
			rep.Events[l.Event]++
		}
	}
	classifyLoss(ctx, c, &rep, lines, ran, produced)
	checkPauses(&rep, ran, timed, cfg.Lease)
	rep.StaleAcks = append([]string{}, staleAcks(ran, timed)...)
	ackGaps(&rep, timed, alwaysLive(cfg), prodStart, prodEnd)
	classifyGaps(&rep, mon.allGaps(), ran, cfg.Lease)

	fail := func(format string, args ...any) { rep.Failures = append(rep.Failures, fmt.Sprintf(format, args...)) }
	if migErr != nil {
		fail("migrations: %v", migErr)
	}
	if incErr != nil {
		fail("shard incarnations: %v", incErr)
	}
	for _, m := range rep.Migrations {
		if m.State != "DEPRECATED" && m.State != "ROLLED_BACK" {
			fail("migration %s (%d→%d) ended the run %s", m.ID, m.From, m.To, m.State)
		}
	}
	if !settled {
		fail("the group did not settle (every shard owned, nothing revoking) within 45s after the last fault")
	}
	if formedErr != nil {
		fail("the coordinator nodes did not all come back into one cluster within 45s after the last fault: %v", formedErr)
	}
	for _, st := range rep.GracefulStops {
		if st.Killed {
			fail("%s did not exit within %s of SIGTERM at %s (killed)", st.Node, gracefulStopLimit, st.At.UTC().Format("15:04:05.000"))
		}
	}
	if produced == 0 {
		fail("the producer published nothing")
	}
	if rep.Lost > 0 {
		fail("%d entries lost (never acknowledged), e.g. seq %v", rep.Lost, rep.LostSeqs)
	}
	if pending > 0 || lag > 0 {
		fail("Redis still has %d pending and %d undelivered entries for the group 45s after the producer stopped", pending, lag)
	} else if !drained {
		fail("not every produced entry was handled within 45s after the producer stopped")
	}
	if len(rr.Overlaps) > 0 {
		fail("%d windows where two members acknowledged on one shard at once: %v", len(rr.Overlaps), head(rr.Overlaps, 10))
	}
	for _, f := range fenceFailures(rr, timed) {
		fail("%s", f)
	}
	if len(rep.EpochRegressions) > 0 {
		fail("epochs went backwards: %v", head(rep.EpochRegressions, 10))
	}
	if len(rep.InvariantViolations) > 0 {
		fail("the coordinator reported invariant violations: %v", head(rep.InvariantViolations, 10))
	}
	if len(rep.PausesWithoutFence) > 0 {
		fail("paused members holding shards did not fence themselves: %v", rep.PausesWithoutFence)
	}
	if len(rep.AckedAfterReassignment) > 0 {
		fail("paused members acknowledged after their shards were reassigned: %v", head(rep.AckedAfterReassignment, 10))
	}
	if len(rep.StaleAcks) > 0 {
		fail("paused members acknowledged entries the new owner had claimed: %v", head(rep.StaleAcks, 10))
	}
	rep.Passed = len(rep.Failures) == 0
	rep.WallSeconds = round2(time.Since(wallStart).Seconds())

	raw, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := reportPath
	if path == "" {
		path = filepath.Join(t.TempDir(), "chaos-report.json")
	}
	if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
		t.Errorf("write report: %v", err)
	}
	t.Logf("chaos report (%s):\n%s", path, raw)
	t.Logf("%d coordinator(s); supervisor restarts %d (evicted nodes that exited on their own)", rep.Coordinators, rep.SupervisorRestarts)
	t.Logf("seed %d: %d faults %v; produced %d, processed %d, lost %d, duplicates %d, hand-offs %d, overlap windows %d, fence overlap windows %d (fenced acks %d), longest unowned gap %dms (lease %s), regressions %d, violations %d",
		rep.Seed, rep.FaultsTotal, rep.FaultsByType, rep.Produced, rep.Processed, rep.Lost, rep.Duplicates, rep.HandOffs,
		rep.OverlapWindows, rep.FenceOverlapWindows, rep.FencedAcks, rep.LongestUnownedMs, cfg.Lease, len(rep.EpochRegressions), len(rep.InvariantViolations))
	for _, f := range rep.Failures {
		t.Errorf("chaos seed %d: %s", cfg.Seed, f)
	}
	if !rep.Passed {
		// Evidence: the report, everything the members recorded (one JSON
		// line each) and the coordinator logs, in a directory that outlives
		// the test (not next to the report: make chaos writes that to docs/).
		base := strings.TrimSuffix(path, ".json")
		if dir, err := os.MkdirTemp("", "rsc-chaos-evidence-"); err == nil {
			base = filepath.Join(dir, "chaos-report")
			_ = os.WriteFile(base+".json", append(raw, '\n'), 0o644)
		}
		linesPath := base + ".lines.jsonl"
		var b strings.Builder
		enc := json.NewEncoder(&b)
		for _, l := range lines {
			_ = enc.Encode(l)
		}
		if err := os.WriteFile(linesPath, []byte(b.String()), 0o644); err == nil {
			t.Logf("recorder lines: %s", linesPath)
		}
		for i, co := range c.coords {
			logPath := base + fmt.Sprintf(".coordinator-%d.log", i)
			if err := os.WriteFile(logPath, []byte(co.Logs()), 0o644); err == nil {
				t.Logf("coordinator-%d log: %s", i, logPath)
			}
		}
	}
	if t.Failed() {
		t.Logf("reproduce: RSC_CHAOS_SEED=%d RSC_CHAOS_DURATION=%s RSC_CHAOS_COORDINATORS=%d RSC_CHAOS_TRANSPORT=%s go test -race -count=1 -run '^TestChaos$' -v ./test/chaos/", cfg.Seed, cfg.Duration, cfg.Coordinators, cfg.Transport)
	}
}

// checkPauses checks every SIGSTOP/SIGCONT fault: a paused member that held
// shards must report SELF_FENCED (or FENCED) once it runs again, and must
// not acknowledge, at its pre-pause epoch, an entry of a shard that another
// member acknowledged on after the pause began.
func checkPauses(rep *Report, ran []injected, lines []recorder.Line, lease time.Duration) {
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].At < lines[j].At })
	for _, f := range ran {
		if f.Kind != FaultMemberPause {
			continue
		}
		rep.Pauses++
		m, p0, p1 := f.Target, f.Start.UnixNano(), f.End.UnixNano()
		// Shards the member's current process had started and not released
		// when it was stopped (a kill -9 ends a process without releases).
		var kills []int64
		for _, g := range ran {
			if g.Kind == FaultMemberKill && g.Target == m && g.Start.UnixNano() < p0 {
				kills = append(kills, g.Start.UnixNano())
			}
		}
		sort.Slice(kills, func(i, j int) bool { return kills[i] < kills[j] })
		live := map[int]bool{}
		var epoch int64
		for _, l := range lines {
			if l.At >= p0 {
				break
			}
			for len(kills) > 0 && kills[0] <= l.At {
				live, kills = map[int]bool{}, kills[1:]
			}
			if l.Member != m || l.Kind != "event" {
				continue
			}
			switch l.Event {
			case "SHARD_STARTED":
				live[l.Shard] = true
			case "SHARD_RELEASED":
				delete(live, l.Shard)
			case "SELF_FENCED", "FENCED":
				live = map[int]bool{} // every worker stopped at once (releases follow)
			}
		}
		for _, l := range lines { // the member's epoch when it was paused
			if l.At < p0 && l.Member == m && l.Epoch > 0 {
				epoch = l.Epoch
			}
		}
		if len(kills) > 0 {
			live = map[int]bool{} // killed after its last record
		}
		if len(live) == 0 {
			continue
		}
		rep.PausesHoldingShards++
		fenced := false
		for _, l := range lines {
			if l.Member == m && l.Kind == "event" && (l.Event == "SELF_FENCED" || l.Event == "FENCED") &&
				l.At >= p0 && l.At <= p1+int64(2*lease) {
				fenced = true
				break
			}
		}
		if fenced {
			rep.PausesSelfFenced++
		} else {
			rep.PausesWithoutFence = append(rep.PausesWithoutFence, fmt.Sprintf("%s paused %s–%s holding %v",
				m, f.Start.UTC().Format("15:04:05.000"), f.End.UTC().Format("15:04:05.000"), keys(live)))
		}
		// Shards another member acknowledged on since the pause began.
		takenAt := map[int]int64{}
		for _, l := range lines {
			if l.Kind == "acked" && l.Member != m && l.At >= p0 && live[l.Shard] {
				if _, ok := takenAt[l.Shard]; !ok {
					takenAt[l.Shard] = l.At
				}
			}
		}
		for _, l := range lines {
			if l.Kind == "acked" && l.Member == m && l.At >= p1 && l.Epoch == epoch {
				if at, ok := takenAt[l.Shard]; ok && at < l.At {
					rep.AckedAfterReassignment = append(rep.AckedAfterReassignment, fmt.Sprintf(
						"%s acked shard %d entry %s at epoch %d at %s after resuming; another member acked on it from %s",
						m, l.Shard, l.EntryID, l.Epoch, time.Unix(0, l.At).UTC().Format("15:04:05.000"),
						time.Unix(0, at).UTC().Format("15:04:05.000")))
				}
			}
		}
	}
}

// ackGaps finds the longest time between two acknowledgements on one shard
// while the producer ran.
func ackGaps(rep *Report, lines []recorder.Line, shards int, from, to time.Time) {
	last := map[int]int64{}
	for s := 0; s < shards; s++ {
		last[s] = from.UnixNano()
	}
	rep.LongestAckGapShard = -1
	note := func(s int, at int64) {
		if d := at - last[s]; d > rep.LongestAckGapMs*int64(time.Millisecond) {
			rep.LongestAckGapMs = d / int64(time.Millisecond)
			rep.LongestAckGapShard = s
			rep.LongestAckGapFrom = time.Unix(0, last[s]).UTC().Format("15:04:05.000")
		}
		last[s] = at
	}
	for _, l := range lines { // sorted by time (recorder.WithoutLateConfirmations)
		if _, tracked := last[l.Shard]; !tracked {
			continue // a shard that does not live through the run (resharding)
		}
		if l.Kind == "acked" && l.At > from.UnixNano() && l.At <= to.UnixNano() {
			note(l.Shard, l.At)
		}
	}
	for s := 0; s < shards; s++ {
		note(s, to.UnixNano())
	}
}

// classifyGaps finds the longest unowned gap clear of Redis and coordinator
// faults.
func classifyGaps(rep *Report, gaps []gap, ran []injected, lease time.Duration) {
	rep.LongestUnownedNoInfraShard = -1
	for _, g := range gaps {
		end := g.From.Add(g.Len)
		clear := true
		for _, f := range ran {
			if !infraFault(f.Kind) {
				continue
			}
			if g.From.Before(f.Recovered.Add(lease)) && f.Start.Before(end) {
				clear = false
				break
			}
		}
		if clear && g.Len.Milliseconds() > rep.LongestUnownedNoInfraMs {
			rep.LongestUnownedNoInfraMs = g.Len.Milliseconds()
			rep.LongestUnownedNoInfraShard = g.Shard
			rep.LongestUnownedNoInfraFrom = g.From.UTC().Format("15:04:05.000")
		}
	}
}

// checkRecords checks the recorded lines (labelled per shard incarnation)
// against what was produced and against the final fences of the live
// shards in Redis (recorder.ReadFences).
func checkRecords(ctx context.Context, t *testing.T, c *cluster, lines []recorder.Line, produced int64) recorder.Report {
	rec := recorder.FromLines(lines)
	if err := rec.ReadFences(ctx, c.redis.Client(), c.cfg.Prefix, c.cfg.Group, c.shards); err != nil {
		t.Errorf("read the final fences: %v", err)
	}
	return rec.Check(produced)
}

// fenceFailures are the failures of the fence-history check: any window, or
// no fenced acknowledgement at all although members acknowledged (the
// coordinator always fences, so the check would have measured nothing).
func fenceFailures(rr recorder.Report, lines []recorder.Line) []string {
	var out []string
	acks := 0
	for _, l := range lines {
		if l.Kind == "acked" {
			acks++
		}
	}
	if len(rr.FenceOverlaps) > 0 {
		out = append(out, fmt.Sprintf("%d double-processing windows in the fence history: %v", len(rr.FenceOverlaps), head(rr.FenceOverlaps, 10)))
	}
	if rr.FencedAcks == 0 && acks > 0 {
		out = append(out, "no acknowledgement carried a fencing token although members acknowledged: the fence-history check measured nothing")
	}
	return out
}

// everyHandledOrAcked reports whether every produced sequence number was
// acknowledged, or at least handled, according to the members' records.
func everyHandledOrAcked(rec *recorder.Recorder, produced int64) bool {
	acked := rec.AckedSeqs()
	if int64(len(acked)) >= produced {
		return true
	}
	handled := map[int64]bool{}
	for _, l := range rec.Lines() {
		if l.Kind == "handled" {
			handled[l.Seq] = true
		}
	}
	for seq := int64(1); seq <= produced; seq++ {
		if !acked[seq] && !handled[seq] {
			return false
		}
	}
	return true
}

// classifyLoss decides, for every produced entry without an ACKED record,
// whether it was lost. The recorder only sees an acknowledgement once the
// member has read XACK's reply; a member killed (or Redis stopped) right
// after the XACK reached Redis leaves the entry acknowledged in Redis with
// no record, and so does a member paused (SIGSTOP) with its XACK in flight:
// Redis applies it, and the reply is read after the pause, once the ack's
// deadline has passed, as a failure. Such an entry is not lost if its
// handler ran, Redis shows it is not pending, and a kill or pause of that
// member or a Redis stop began within 2 s after the handler (or up to
// faultSkew before it: a fault is timed when the runner sends the signal,
// and the member may finish its handler while the signal is delivered).
// Everything else without an ACKED record is lost.
// faultSkew: how long before a fault's recorded start its member may still
// finish a handler (the signal is sent after the fault is timed).
const faultSkew = 250 * time.Millisecond

func classifyLoss(ctx context.Context, c *cluster, rep *Report, lines []recorder.Line, ran []injected, produced int64) {
	acked := c.rec.AckedSeqs()
	handled := map[int64][]recorder.Line{}
	for _, l := range lines {
		if l.Kind == "handled" {
			handled[l.Seq] = append(handled[l.Seq], l)
		}
	}
	rdb := c.redis.Client()
	rep.Lost, rep.LostSeqs, rep.Processed = 0, nil, 0
	for seq := int64(1); seq <= produced; seq++ {
		if acked[seq] {
			rep.Processed++
			continue
		}
		excuse := ""
		for _, h := range handled[seq] {
			rows, err := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: c.streamOf(h.Shard),
				Group: c.cfg.Group, Start: h.EntryID, End: h.EntryID, Count: 1}).Result()
			if err != nil || len(rows) > 0 {
				continue
			}
			for _, f := range ran {
				after := f.Start.Sub(time.Unix(0, h.At))
				if after < -faultSkew || after > 2*time.Second {
					continue
				}
				if f.Kind == FaultRedisStop || ((f.Kind == FaultMemberKill || f.Kind == FaultMemberPause) && f.Target == h.Member) {
					excuse = fmt.Sprintf("seq %d: %s handled shard %d entry %s at %s; %s %s at %s; not pending in Redis",
						seq, h.Member, h.Shard, h.EntryID, clock(h.At), f.Kind, f.Target, f.Start.UTC().Format("15:04:05.000"))
					break
				}
			}
			if excuse != "" {
				break
			}
		}
		if excuse != "" {
			rep.Processed++
			rep.AckedUnrecorded++
			if len(rep.AckedUnrecordedEntries) < 50 {
				rep.AckedUnrecordedEntries = append(rep.AckedUnrecordedEntries, excuse)
			}
			continue
		}
		rep.Lost++
		if len(rep.LostSeqs) < 20 {
			rep.LostSeqs = append(rep.LostSeqs, seq)
		}
	}
}

func revision() string {
	out, err := exec.Command("git", "-C", harness.RepoRoot(), "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func memberIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("m%d", i)
	}
	return out
}

func keys(set map[int]bool) []int {
	out := make([]int, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func waitFor(timeout time.Duration, cond func() bool) bool {
	return waitForEvery(timeout, 100*time.Millisecond, cond)
}

func waitForEvery(timeout, every time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(every)
	}
}

func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !waitFor(timeout, cond) {
		t.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}

// waitFormed waits until every coordinator process runs and the nodes form
// one cluster again (harness.Cluster.WaitFormed skips exited nodes; an
// exited node here is one the supervisor has not restarted yet, or could
// not).
func waitFormed(c *cluster, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var exited []string
		for i, co := range c.coords {
			if co.Exited() {
				exited = append(exited, fmt.Sprintf("coordinator-%d", i))
			}
		}
		var err error
		if len(exited) > 0 {
			err = fmt.Errorf("not running: %v", exited)
		} else {
			err = c.hc.WaitFormed(time.Second)
		}
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}
