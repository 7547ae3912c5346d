package chaos

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/test/recorder"
)

// exactlyOnceDuration is the fault phase of TestChaosExactlyOnce: every
// fault kind once and a few more, a reshard or two.
const exactlyOnceDuration = 30 * time.Second

// TestChaosExactlyOnce runs the chaos faults on a consume → transform →
// produce pipeline through the exactly-once APIs: the producer publishes
// through an idempotent producer (its sequence number as idempotent id), and
// every member handles an entry in a transaction that appends an output
// entry {seq, from} to {<shard stream>}:out and adds seq to field seq%997
// of {<shard stream>}:sums, committed with the entry's acknowledgement.
// Beside the at-least-once checks (nothing lost, no overlap), the outputs
// must match the input exactly: one output per input entry, none without
// one, and the sums equal to the ones computed from the input.
// RSC_CHAOS_SEED, RSC_CHAOS_DURATION, RSC_CHAOS_COORDINATORS,
// RSC_CHAOS_TRANSPORT and RSC_CHAOS_REDIS apply; `make chaos-eos` runs it
// long.
func TestChaosExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos run: not in -short")
	}
	reportPath := os.Getenv("RSC_CHAOS_REPORT")
	runChaos(t, shortRun(t, exactlyOnceDuration, "mixed", func(cfg *config) {
		cfg.ExactlyOnce = true
		// Handlers that take a while, so that member kills and pauses catch
		// entries in flight: they are processed again by the next owner, and
		// the check sees whether their outputs are written twice.
		cfg.Work = exactlyOnceWork
	}), reportPath)
}

// exactlyOnceWork is the handler time of TestChaosExactlyOnce (the
// at-least-once runs: 5 ms).
const exactlyOnceWork = 40 * time.Millisecond

// eosReport is what the exactly-once run found in Redis at the end.
type eosReport struct {
	InputEntries int `json:"inputEntries"` // entries of every incarnation of every shard, retired ones included
	// ProcessedTwice: input entries a handler ran on more than once (the
	// report's duplicates): the redeliveries whose outputs must not be
	// written twice.
	ProcessedTwice int `json:"processedTwice"`
	OutputEntries  int `json:"outputEntries"` // entries of every {<shard stream>}:out
	// Duplicated: input entries with more than one output; Missing: input
	// entries with none; Stray: outputs of no input entry.
	Duplicated     int      `json:"duplicated"`
	Missing        int      `json:"missing"`
	Stray          int      `json:"stray"`
	SumFields      int      `json:"sumFields"`
	SumMismatches  int      `json:"sumMismatches"`
	Examples       []string `json:"examples,omitempty"`
	InputDupSeqs   int      `json:"inputDuplicateSeqs"` // sequence numbers in the input more than once (the idempotent producer should leave none)
	ReadError      string   `json:"readError,omitempty"`
	CheckedSeconds float64  `json:"checkedSeconds"`
}

// checkExactlyOnce compares the pipeline's outputs and sums with its
// input, as an offline computation would.
func (c *cluster) checkExactlyOnce(ctx context.Context) *eosReport {
	start := time.Now()
	rep := &eosReport{}
	fail := func(err error) *eosReport { rep.ReadError = err.Error(); return rep }
	rdb := c.rdb
	// Inputs: the live shard streams and the retired ones, by shard index.
	type entry struct {
		shard int
		id    string
	}
	inputs := map[entry]int64{}
	seqCount := map[int64]int{}
	wantSums := map[string]int64{}
	addInput := func(key string, shard int) error {
		msgs, err := rdb.XRange(ctx, key, "-", "+").Result()
		if err != nil {
			return fmt.Errorf("XRANGE %s: %w", key, err)
		}
		for _, m := range msgs {
			seq, _ := strconv.ParseInt(fmt.Sprint(m.Values["seq"]), 10, 64)
			inputs[entry{shard, m.ID}] = seq
			seqCount[seq]++
			wantSums[strconv.FormatInt(seq%997, 10)] += seq
		}
		return nil
	}
	prefix := c.cfg.Prefix
	retired, err := scanKeys(ctx, rdb, "{"+prefix+":*}:retired:*")
	if err != nil {
		return fail(err)
	}
	for _, k := range retired {
		if err := addInput(k, shardIndexOf(strings.TrimPrefix(k, "{"))); err != nil {
			return fail(err)
		}
	}
	for s := 0; s < c.shards; s++ {
		if err := addInput(prefix+":"+strconv.Itoa(s), s); err != nil {
			return fail(err)
		}
	}
	// Outputs and sums, of every shard index that ever had any.
	outs, err := scanKeys(ctx, rdb, "{"+prefix+":*}:out")
	if err != nil {
		return fail(err)
	}
	outputs := map[entry]int{}
	for _, k := range outs {
		shard := shardIndexOf(strings.TrimPrefix(k, "{"))
		msgs, err := rdb.XRange(ctx, k, "-", "+").Result()
		if err != nil {
			return fail(fmt.Errorf("XRANGE %s: %w", k, err))
		}
		for _, m := range msgs {
			outputs[entry{shard, fmt.Sprint(m.Values["from"])}]++
			rep.OutputEntries++
		}
	}
	gotSums := map[string]int64{}
	sums, err := scanKeys(ctx, rdb, "{"+prefix+":*}:sums")
	if err != nil {
		return fail(err)
	}
	for _, k := range sums {
		h, err := rdb.HGetAll(ctx, k).Result()
		if err != nil {
			return fail(fmt.Errorf("HGETALL %s: %w", k, err))
		}
		for f, v := range h {
			n, _ := strconv.ParseInt(v, 10, 64)
			gotSums[f] += n
		}
	}
	example := func(format string, args ...any) {
		if len(rep.Examples) < 20 {
			rep.Examples = append(rep.Examples, fmt.Sprintf(format, args...))
		}
	}
	rep.InputEntries = len(inputs)
	for e, seq := range inputs {
		switch n := outputs[e]; {
		case n == 0:
			rep.Missing++
			example("input shard %d entry %s (seq %d) has no output", e.shard, e.id, seq)
		case n > 1:
			rep.Duplicated++
			example("input shard %d entry %s (seq %d) has %d outputs", e.shard, e.id, seq, n)
		}
	}
	for e := range outputs {
		if _, ok := inputs[e]; !ok {
			rep.Stray++
			example("output for shard %d entry %s, which is in no input", e.shard, e.id)
		}
	}
	for _, n := range seqCount {
		if n > 1 {
			rep.InputDupSeqs++
		}
	}
	fields := map[string]bool{}
	for f := range wantSums {
		fields[f] = true
	}
	for f := range gotSums {
		fields[f] = true
	}
	rep.SumFields = len(fields)
	keys := make([]string, 0, len(fields))
	for f := range fields {
		keys = append(keys, f)
	}
	sort.Strings(keys)
	for _, f := range keys {
		if wantSums[f] != gotSums[f] {
			rep.SumMismatches++
			example("sum of field %s: %d in Redis, %d from the input", f, gotSums[f], wantSums[f])
		}
	}
	rep.CheckedSeconds = round2(time.Since(start).Seconds())
	return rep
}

// eosFailures are the failures of an exactly-once report.
func eosFailures(r *eosReport) []string {
	var out []string
	if r.ReadError != "" {
		return []string{"exactly-once check could not read Redis: " + r.ReadError}
	}
	if r.Duplicated > 0 || r.Missing > 0 || r.Stray > 0 || r.SumMismatches > 0 {
		out = append(out, fmt.Sprintf("exactly-once: %d input entries, %d outputs: %d duplicated, %d missing, %d stray, %d of %d sums wrong; e.g. %v",
			r.InputEntries, r.OutputEntries, r.Duplicated, r.Missing, r.Stray, r.SumMismatches, r.SumFields, head(r.Examples, 5)))
	}
	if r.InputDupSeqs > 0 {
		out = append(out, fmt.Sprintf("exactly-once: %d sequence numbers are in the input more than once although the producer is idempotent", r.InputDupSeqs))
	}
	return out
}

// scanKeys lists the keys matching pattern.
func scanKeys(ctx context.Context, rdb redis.UniversalClient, pattern string) ([]string, error) {
	var out []string
	it := rdb.Scan(ctx, 0, pattern, 1000).Iterator()
	for it.Next(ctx) {
		out = append(out, it.Val())
	}
	return out, it.Err()
}

// shardIndexOf is the shard index of "<prefix>:<i>…" (after the last ':'
// of the part before '}' when there is one).
func shardIndexOf(key string) int {
	if i := strings.IndexByte(key, '}'); i >= 0 {
		key = key[:i]
	}
	n, _ := strconv.Atoi(key[strings.LastIndexByte(key, ':')+1:])
	return n
}

// Static members keep the exactly-once pipeline exact through a temporary
// leave and return of one member, a rolling restart of every member (each
// leaves with SIGTERM — memberEpoch -2, its shards held for it — and a new
// process with the same instance id takes them back), and a member killed
// and back within its session, with the producer running throughout.
func TestExactlyOnceThroughStaticLeavesAndARollingRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos run: not in -short")
	}
	cfg := loadConfig(t)
	cfg.ExactlyOnce, cfg.Static, cfg.Work = true, true, exactlyOnceWork
	cfg.Members, cfg.MaxDown, cfg.ReshardMax = 3, 1, 0
	cfg.setTransport("http")
	cfg.Proxied = 0
	c := startCluster(t, cfg)
	mon := newMonitor(c.coordinatorURLs(), cfg.Prefix, cfg.Group, cfg.Shards, cfg.Lease)
	stopMon := make(chan struct{})
	monDone := make(chan struct{})
	go func() { defer close(monDone); mon.run(200*time.Millisecond, stopMon) }()
	t.Cleanup(func() {
		select {
		case <-stopMon:
		default:
			close(stopMon)
			<-monDone
		}
	})
	waitUntil(t, 30*time.Second, "every shard owned at start", func() bool { return mon.settled(0) })
	c.startProducer(cfg.Rate)

	restart := func(id string) {
		time.Sleep(time.Second) // entries in flight on every member
		if !c.member(id).Leave(10 * time.Second) {
			t.Fatalf("%s did not exit within 10s of SIGTERM", id)
		}
		time.Sleep(500 * time.Millisecond) // away for a moment: its shards wait for it
		c.startMember(id)
		waitUntil(t, 30*time.Second, id+" back and every shard owned", func() bool { return mon.settled(2 * cfg.Heartbeat) })
	}
	restart(c.ids[1])          // a temporary leave and return
	for _, id := range c.ids { // a rolling restart
		restart(id)
	}
	// A static member killed (-9) with entries in flight and back with its
	// instance id before its session times out: it claims its own pending
	// entries and processes them again.
	time.Sleep(time.Second)
	c.member(c.ids[2]).Kill()
	time.Sleep(500 * time.Millisecond)
	c.startMember(c.ids[2])
	waitUntil(t, 30*time.Second, c.ids[2]+" back after a kill", func() bool { return mon.settled(2 * cfg.Heartbeat) })
	time.Sleep(time.Second)
	c.stopProducer()
	produced := c.prod.Produced()
	ctx := context.Background()
	drained := waitForEvery(45*time.Second, 500*time.Millisecond, func() bool {
		if !everyHandledOrAcked(c.rec, produced) {
			return false
		}
		pending, lag, _, err := c.redisBacklog(ctx)
		return err == nil && pending == 0 && lag == 0
	})
	if !drained {
		t.Fatal("not every produced entry was handled and acknowledged within 45s after the producer stopped")
	}
	close(stopMon)
	<-monDone
	rr := recorder.FromLines(c.rec.Lines()).Check(produced)
	e := c.checkExactlyOnce(ctx)
	e.ProcessedTwice = rr.Duplicates
	t.Logf("produced %d, processed %d, lost %d, processed twice %d, overlap windows %d; exactly-once: %d inputs, %d outputs, %d duplicated, %d missing, %d stray, %d of %d sums wrong",
		produced, rr.Processed, rr.Lost, rr.Duplicates, len(rr.Overlaps), e.InputEntries, e.OutputEntries, e.Duplicated, e.Missing, e.Stray, e.SumMismatches, e.SumFields)
	if rr.Lost > 0 {
		t.Errorf("%d entries lost, e.g. %v", rr.Lost, rr.LostSeqs)
	}
	if len(rr.Overlaps) > 0 {
		t.Errorf("two members acknowledged on one shard at once: %v", head(rr.Overlaps, 10))
	}
	for _, f := range eosFailures(e) {
		t.Error(f)
	}
	if e.InputEntries == 0 {
		t.Error("no input: the run proves nothing")
	}
}
