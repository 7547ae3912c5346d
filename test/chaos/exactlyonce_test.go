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
	durationSet := os.Getenv("RSC_CHAOS_DURATION") != ""
	transportSet := os.Getenv("RSC_CHAOS_TRANSPORT") != ""
	reportPath := os.Getenv("RSC_CHAOS_REPORT")
	cfg := loadConfig(t)
	cfg.ExactlyOnce = true
	// Handlers that take a while, so that member kills and pauses catch
	// entries in flight: they are processed again by the next owner, and
	// the check sees whether their outputs are written twice.
	cfg.Work = exactlyOnceWork
	if !durationSet {
		cfg.Duration = exactlyOnceDuration
	}
	if !transportSet {
		cfg.setTransport("mixed")
	}
	runChaos(t, cfg, reportPath)
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
