package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/test/recorder"
)

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
// graceful restart among the faults. Members m4 and m5 heartbeat through
// the Redis mailbox, the others over HTTP (RSC_CHAOS_TRANSPORT=http or
// redis puts them all on one). RSC_CHAOS_SEED and RSC_CHAOS_DURATION
// apply; the report goes to the test's temporary directory.
func TestChaosCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos run: not in -short")
	}
	// mixed: the mailbox under node faults too, at no extra run time.
	runChaos(t, shortRun(t, clusterDuration, "mixed", func(cfg *config) { cfg.Coordinators = 3 }), "")
}

// sentinelDuration is the fault phase of TestChaosSentinel: every fault
// kind of the setup once (the Redis failover included) and a few more.
const sentinelDuration = 30 * time.Second

// TestChaosSentinel is the short chaos run on Redis Sentinel: a primary
// with two replicas behind three Sentinels, whose primary the
// redis-failover fault kills (the Sentinels promote a replica) in place of
// redis-stop. The coordinator writes with store.wait-replicas 1 and the
// producer publishes with WaitReplicas 1, so nothing confirmed may be lost;
// members m4 and m5 heartbeat through the Redis mailbox. RSC_CHAOS_SEED,
// RSC_CHAOS_DURATION, RSC_CHAOS_COORDINATORS and RSC_CHAOS_TRANSPORT apply.
func TestChaosSentinel(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos run: not in -short")
	}
	runChaos(t, shortRun(t, sentinelDuration, "mixed", func(cfg *config) { cfg.Redis = "sentinel" }), "")
}

// shortRun is the configuration of a short run in `make test`: the
// environment's, changed by mod, with fault phase d and transport unless
// RSC_CHAOS_DURATION and RSC_CHAOS_TRANSPORT say otherwise.
func shortRun(t *testing.T, d time.Duration, transport string, mod func(*config)) config {
	durationSet := os.Getenv("RSC_CHAOS_DURATION") != ""
	transportSet := os.Getenv("RSC_CHAOS_TRANSPORT") != ""
	cfg := loadConfig(t)
	mod(&cfg)
	if !durationSet {
		cfg.Duration = d
	}
	if !transportSet {
		cfg.setTransport(transport)
	}
	return cfg
}

// runChaos is one chaos run of cfg; the report is written to reportPath
// (the test's temporary directory when empty).
func runChaos(t *testing.T, cfg config, reportPath string) {
	wallStart := time.Now()
	faults := Generate(ScheduleConfig{
		Seed: cfg.Seed, Duration: cfg.Duration, Lease: cfg.Lease,
		Members: memberIDs(cfg.Members), Coordinators: cfg.Coordinators, Proxies: cfg.Coordinators,
		MaxMembersDown: cfg.MaxDown, MaxCoordinatorsDown: max(1, cfg.Coordinators-1), // one node always up
		Sentinel: cfg.Redis == "sentinel",
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
		Coordinators: cfg.Coordinators, Redis: cfg.Redis, Transport: cfg.Transport, MailboxMembers: cfg.MailboxMembers, Members: cfg.Members, ProxiedMembers: cfg.Proxied, Shards: cfg.Shards,
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
	if cfg.ExactlyOnce {
		rep.ExactlyOnce = c.checkExactlyOnce(ctx)
		rep.ExactlyOnce.ProcessedTwice = rr.Duplicates
	}
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
	if rep.ExactlyOnce != nil {
		for _, f := range eosFailures(rep.ExactlyOnce) {
			fail("%s", f)
		}
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
	if e := rep.ExactlyOnce; e != nil {
		t.Logf("exactly-once: %d input entries (%d processed more than once), %d outputs: %d duplicated, %d missing, %d stray; %d sums, %d wrong; %d sequence numbers in the input twice (checked in %.2fs)",
			e.InputEntries, e.ProcessedTwice, e.OutputEntries, e.Duplicated, e.Missing, e.Stray, e.SumFields, e.SumMismatches, e.InputDupSeqs, e.CheckedSeconds)
	}
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
		t.Logf("reproduce: RSC_CHAOS_SEED=%d RSC_CHAOS_DURATION=%s RSC_CHAOS_COORDINATORS=%d RSC_CHAOS_TRANSPORT=%s RSC_CHAOS_REDIS=%s go test -race -count=1 -run '^%s$' -v ./test/chaos/", cfg.Seed, cfg.Duration, cfg.Coordinators, cfg.Transport, cfg.Redis, t.Name())
	}
}
