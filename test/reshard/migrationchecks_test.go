package reshard

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

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
