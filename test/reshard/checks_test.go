package reshard

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
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

// allowedNext lists the states a migration may move to from each state.
var allowedNext = map[string][]string{
	protocol.MigrationPreparing:   {protocol.MigrationActive, protocol.MigrationRollingBack, protocol.MigrationRolledBack},
	protocol.MigrationActive:      {protocol.MigrationDraining, protocol.MigrationDeprecated, protocol.MigrationRollingBack},
	protocol.MigrationDraining:    {protocol.MigrationDeprecated, protocol.MigrationRollingBack},
	protocol.MigrationRollingBack: {protocol.MigrationRolledBack},
}

// historyProblems checks a finished migration from→to: its counts, final
// state, the state history (starts PREPARING, only allowed steps, times in
// order, ends in the final state, an activation before DEPRECATED, a
// DRAINING step for a scale-in) and the shards it lists.
func historyProblems(m protocol.Migration, from, to int, final string) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if m.FromShardCount != from || m.ToShardCount != to {
		bad("counts %d→%d, want %d→%d", m.FromShardCount, m.ToShardCount, from, to)
	}
	if m.State != final {
		bad("state %s, want %s", m.State, final)
	}
	created, err1 := time.Parse(time.RFC3339Nano, m.CreatedAt)
	updated, err2 := time.Parse(time.RFC3339Nano, m.UpdatedAt)
	if err1 != nil || err2 != nil || updated.Before(created) {
		bad("createdAt %q, updatedAt %q", m.CreatedAt, m.UpdatedAt)
	}
	if m.RequestedBy != "test" {
		bad("requestedBy %q", m.RequestedBy)
	}
	var states []string
	var prevAt time.Time
	for i, h := range m.History {
		states = append(states, h.State)
		at, err := time.Parse(time.RFC3339Nano, h.At)
		if err != nil {
			bad("history step %d at %q: %v", i, h.At, err)
		} else if at.Before(prevAt) {
			bad("history step %d (%s) at %s before the step before it", i, h.State, h.At)
		}
		prevAt = at
		if i > 0 && h.State != states[i-1] && !contains(allowedNext[states[i-1]], h.State) {
			bad("history step %s → %s is not allowed", states[i-1], h.State)
		}
	}
	switch {
	case len(states) == 0:
		bad("no history")
	case states[0] != protocol.MigrationPreparing:
		bad("history starts %s, want PREPARING", states[0])
	case states[len(states)-1] != final:
		bad("history ends %s, want %s", states[len(states)-1], final)
	}
	if final == protocol.MigrationDeprecated {
		if !contains(states, protocol.MigrationActive) {
			bad("DEPRECATED without ACTIVE in its history %v", states)
		}
		if to < from && !contains(states, protocol.MigrationDraining) {
			bad("a scale-in without DRAINING in its history %v", states)
		}
		if m.MetadataVersion <= 0 {
			bad("metadataVersion %d after activation", m.MetadataVersion)
		}
	}
	// The shards it lists.
	want := map[int]string{}
	for s := min(from, to); s < max(from, to); s++ {
		if to > from {
			want[s] = "ADD"
		} else {
			want[s] = "REMOVE"
		}
	}
	got := map[int]protocol.MigrationShard{}
	for _, s := range m.Shards {
		got[s.ShardIndex] = s
		if s.StreamKey != protocol.StreamKey(prefix, s.ShardIndex) {
			bad("shard %d streamKey %q", s.ShardIndex, s.StreamKey)
		}
	}
	for s, change := range want {
		sh, ok := got[s]
		switch {
		case !ok:
			bad("shard %d not listed (want %s)", s, change)
		case sh.Change != change:
			bad("shard %d change %s, want %s", s, sh.Change, change)
		case final == protocol.MigrationDeprecated && change == "ADD" && sh.State != "PROVISIONED":
			bad("added shard %d is %s, want PROVISIONED", s, sh.State)
		case final == protocol.MigrationDeprecated && change == "REMOVE" && (sh.State != "RETIRED" || sh.RetiredKey == ""):
			bad("removed shard %d is %s (retiredKey %q), want RETIRED", s, sh.State, sh.RetiredKey)
		}
	}
	if len(got) != len(want) {
		bad("%d shards listed, want %d", len(got), len(want))
	}
	return out
}

// checkHistory fails the test on historyProblems.
func (e *env) checkHistory(m protocol.Migration, from, to int, final string) {
	e.t.Helper()
	if p := historyProblems(m, from, to, final); len(p) > 0 {
		e.t.Errorf("migration %s (%d→%d): %v\n%s", m.ReshardingID, from, to, p, describe(m))
	}
}

// checkRetired checks every shard m retired: its retired key holds a
// stream and expires (a TTL is set); the live key and the group's fence are
// gone unless the shard index is live again (index < live).
func (e *env) checkRetired(m protocol.Migration, live int) int {
	e.t.Helper()
	ctx := context.Background()
	rdb := e.redis.Client()
	n := 0
	for _, s := range m.Shards {
		if s.RetiredKey == "" {
			continue
		}
		n++
		if want := fmt.Sprintf("{%s}:retired:%s", s.StreamKey, m.ReshardingID); s.RetiredKey != want {
			e.t.Errorf("shard %d retired to %q, want %q", s.ShardIndex, s.RetiredKey, want)
		}
		if typ, err := rdb.Type(ctx, s.RetiredKey).Result(); err != nil || typ != "stream" {
			e.t.Errorf("retired key %s: type %q, err %v; want a stream", s.RetiredKey, typ, err)
		}
		if ttl, err := rdb.PTTL(ctx, s.RetiredKey).Result(); err != nil || ttl <= 0 {
			e.t.Errorf("retired key %s: TTL %s, err %v; want a retention TTL", s.RetiredKey, ttl, err)
		}
		if s.ShardIndex >= live {
			if n, _ := rdb.Exists(ctx, s.StreamKey).Result(); n != 0 {
				e.t.Errorf("shard %d retired but %s still exists", s.ShardIndex, s.StreamKey)
			}
			if n, _ := rdb.Exists(ctx, protocol.FenceKey(s.StreamKey, group)).Result(); n != 0 {
				e.t.Errorf("shard %d retired but its fence %s still exists", s.ShardIndex, protocol.FenceKey(s.StreamKey, group))
			}
			// A producer with old routing fails loudly: no entry is written.
			err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: s.StreamKey, NoMkStream: true, Values: map[string]any{"late": 1}}).Err()
			if err != redis.Nil {
				e.t.Errorf("XADD %s NOMKSTREAM after retirement: %v, want a nil reply", s.StreamKey, err)
			}
		}
	}
	return n
}

// checkNoOrphans checks that every shard stream of the prefix beyond the
// live count, and every retired key, is reported by some migration.
func (e *env) checkNoOrphans(live int, migs []protocol.Migration) {
	e.t.Helper()
	ctx := context.Background()
	listed := map[string]bool{}
	for _, m := range migs {
		for _, s := range m.Shards {
			listed[s.StreamKey] = true
			if s.RetiredKey != "" {
				listed[s.RetiredKey] = true
			}
		}
	}
	var keys []string
	iter := e.redis.Client().Scan(ctx, 0, "*"+prefix+":*", 100).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		e.t.Fatalf("SCAN: %v", err)
	}
	for _, k := range keys {
		if i, err := strconv.Atoi(strings.TrimPrefix(k, prefix+":")); err == nil && strings.HasPrefix(k, prefix+":") {
			if i >= live && !listed[k] {
				e.t.Errorf("orphan shard stream %s (live shard count %d) not reported by any migration", k, live)
			}
			continue
		}
		if strings.Contains(k, ":retired:") && !listed[k] {
			e.t.Errorf("retired key %s not reported by any migration", k)
		}
	}
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
