package reshard

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/redisstream/coordinator/test/recorder"
	"github.com/redisstream/coordinator/test/seqprod"
)

// drainTimeout bounds the wait, after the producers stopped, for members to
// acknowledge everything Redis acknowledged.
const drainTimeout = 30 * time.Second

// checkDataPlane stops the producers (either may be nil) and the monitor,
// waits until the members acknowledged every seq Redis acknowledged, and
// checks: nothing lost; one owner per shard incarnation (ack windows and the
// fence history); at least one fenced acknowledgement; entries of a key in
// order while its shard did not change; no invariant violation or
// regression seen by the monitor. It returns the relabelled lines.
func (e *env) checkDataPlane(sdk *seqprod.Producer, raw *rawProducer, mon *monitor) []recorder.Line {
	t := e.t
	t.Helper()
	ctx := context.Background()
	want := map[int64]bool{}
	if sdk != nil {
		for s := int64(1); s <= sdk.Stop(); s++ {
			want[s] = true
		}
	}
	if raw != nil {
		raw.Stop()
		for s := range raw.Acked() {
			want[s] = true
		}
	}
	missing := func(acked map[int64]bool) []int64 {
		var out []int64
		for s := range want {
			if !acked[s] {
				out = append(out, s)
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
		return out
	}
	drainStart := time.Now()
	drained := waitFor(drainTimeout, func() bool { return len(missing(e.rec.AckedSeqs())) == 0 })
	t.Logf("data plane: %d entries acknowledged by Redis; members %s after the producers stopped (%s)",
		len(want), map[bool]string{true: "caught up", false: "did NOT catch up"}[drained], time.Since(drainStart).Round(time.Millisecond))
	if mon != nil {
		mon.Stop()
	}

	rdb := e.redis.Client()
	migs := e.api.mustMigrations(t)
	inc, err := recorder.ReadIncarnations(ctx, rdb, prefix, migs.Migrations)
	if err != nil {
		t.Fatalf("shard incarnations: %v", err)
	}
	lines := inc.Relabel(e.rec.Lines())
	all := recorder.FromLines(lines)
	settled, err := all.SettleIncarnations(ctx, rdb, inc, group)
	if err != nil {
		t.Errorf("settle: %v", err)
	}
	if lost := missing(all.AckedSeqs()); len(lost) > 0 {
		t.Errorf("%d of %d entries Redis acknowledged were never processed (settled from Redis: %d); first: %v",
			len(lost), len(want), settled, head64(lost, 20))
		for _, s := range head64(lost, 5) {
			t.Logf("lost seq %d: %s", s, e.whereIs(ctx, s, lines))
		}
	}

	timed, late := recorder.WithoutLateConfirmations(lines)
	windows := recorder.FromLines(timed)
	routing, err := e.api.routing()
	if err == nil {
		if err := windows.ReadFences(ctx, rdb, prefix, group, routing.ShardCount); err != nil {
			t.Errorf("read fences: %v", err)
		}
	}
	rep := windows.Check(0)
	if len(rep.Overlaps) > 0 {
		t.Errorf("two members acknowledged on one shard at once (%d windows): %v", len(rep.Overlaps), head(rep.Overlaps, 10))
	}
	if len(rep.FenceOverlaps) > 0 {
		t.Errorf("double-processing windows in the fence history (%d): %v", len(rep.FenceOverlaps), head(rep.FenceOverlaps, 10))
	}
	acks := 0
	for _, l := range timed {
		if l.Kind == "acked" {
			acks++
		}
	}
	if acks > 0 && rep.FencedAcks == 0 {
		t.Errorf("no acknowledgement carried a fencing token: the fence check measured nothing")
	}
	pairs, broken := keyOrder(lines)
	if len(broken) > 0 {
		t.Errorf("entries of a key on an unchanged shard processed out of order (%d of %d pairs): %v", len(broken), pairs, head(broken, 10))
	}
	if pairs == 0 && len(want) > 0 {
		t.Errorf("the order check compared nothing")
	}
	if mon != nil {
		violations, regressions, polls := mon.Problems()
		if len(violations) > 0 {
			t.Errorf("the coordinator reported invariant violations: %v", head(violations, 10))
		}
		if len(regressions) > 0 {
			t.Errorf("epochs or the metadata version went backwards: %v", head(regressions, 10))
		}
		t.Logf("monitor: %d polls", polls)
	}
	t.Logf("data plane: %d acks (%d fenced, %d late confirmations), %d duplicates handled, %d hand-offs, %d same-shard key pairs in order, %d settled from Redis",
		acks, rep.FencedAcks, late, duplicates(lines), rep.HandOffs, pairs, settled)
	return lines
}

// keyOf is the partition key of seq (either producer).
func keyOf(seq int64) string {
	if seq >= rawBase {
		return rawKey(seq - rawBase)
	}
	return sdkKey(seq)
}

// keyOrder checks the ordering promise: two entries of one key written one
// after the other to the same shard incarnation are first handled in the
// order they were written (one producer goroutine per key, so seq order is
// write order). Pairs across a shard change are not compared: a key whose
// shard changes may be processed out of order around the switch. It
// returns the pairs compared and the ones out of order.
func keyOrder(lines []recorder.Line) (int, []string) {
	type first struct {
		at    int64
		shard int
		id    string
	}
	firsts := map[int64]first{}
	for _, l := range lines {
		if l.Kind != "handled" || l.Seq == 0 {
			continue
		}
		if f, ok := firsts[l.Seq]; !ok || l.At < f.at {
			firsts[l.Seq] = first{l.At, l.Shard, l.EntryID}
		}
	}
	byKey := map[string][]int64{}
	for seq := range firsts {
		byKey[keyOf(seq)] = append(byKey[keyOf(seq)], seq)
	}
	pairs := 0
	var broken []string
	for k, seqs := range byKey {
		sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
		for i := 1; i < len(seqs); i++ {
			a, b := firsts[seqs[i-1]], firsts[seqs[i]]
			if a.shard != b.shard {
				continue
			}
			pairs++
			if a.at > b.at {
				broken = append(broken, fmt.Sprintf("key %s shard %d: seq %d (%s) first handled at %s, after seq %d (%s) at %s",
					k, a.shard, seqs[i-1], a.id, clock(a.at), seqs[i], b.id, clock(b.at)))
			}
		}
	}
	sort.Strings(broken)
	return pairs, broken
}

// whereIs says what the records know about seq, for a loss report.
func (e *env) whereIs(ctx context.Context, seq int64, lines []recorder.Line) string {
	var parts []string
	for _, l := range lines {
		if l.Kind == "handled" && l.Seq == seq {
			parts = append(parts, fmt.Sprintf("handled by %s on shard %d entry %s at %s", l.Member, l.Shard, l.EntryID, clock(l.At)))
		}
	}
	if len(parts) == 0 {
		return "never handled (key " + keyOf(seq) + ")"
	}
	return strings.Join(parts, "; ")
}

func duplicates(lines []recorder.Line) int {
	n := map[int64]int{}
	d := 0
	for _, l := range lines {
		if l.Kind == "handled" {
			n[l.Seq]++
			if n[l.Seq] > 1 {
				d++
			}
		}
	}
	return d
}

func clock(ns int64) string { return time.Unix(0, ns).UTC().Format("15:04:05.000") }

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func head64(s []int64, n int) []int64 {
	if len(s) > n {
		return s[:n]
	}
	return s
}
