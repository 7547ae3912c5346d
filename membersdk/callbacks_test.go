package membersdk

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// shardLog records, in order, the shard callbacks ("+0" assigned, "-0"
// revoked) and the handler calls ("h0") of one consumer.
type shardLog struct {
	mu  sync.Mutex
	log []string
}

func (l *shardLog) add(s string) {
	l.mu.Lock()
	l.log = append(l.log, s)
	l.mu.Unlock()
}

func (l *shardLog) entries() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.log)
}

func (l *shardLog) count(s string) int {
	n := 0
	for _, e := range l.entries() {
		if e == s {
			n++
		}
	}
	return n
}

// hook wires the callbacks and checks what they are given: sorted shards,
// a context that is not cancelled.
func (l *shardLog) hook(t *testing.T, cfg *ConsumerConfig) {
	record := func(sign string) func(ctx context.Context, shards []int) {
		return func(ctx context.Context, shards []int) {
			if ctx.Err() != nil {
				t.Errorf("callback %s%v with a cancelled context", sign, shards)
			}
			if !slices.IsSorted(shards) || len(shards) == 0 {
				t.Errorf("callback %s%v: want a sorted, non-empty list", sign, shards)
			}
			for _, s := range shards {
				l.add(fmt.Sprintf("%s%d", sign, s))
			}
		}
	}
	cfg.OnShardsAssigned = record("+")
	cfg.OnShardsRevoked = record("-")
}

// checkPairs: per shard, assignments and revocations alternate, starting
// with an assignment; handler calls happen only in between; with closed,
// every shard ends revoked.
func (l *shardLog) checkPairs(t *testing.T, closed bool) {
	t.Helper()
	open := map[string]bool{}
	for i, e := range l.entries() {
		s := e[1:]
		switch e[0] {
		case '+':
			require.False(t, open[s], "shard %s assigned twice without a revocation (at %d: %v)", s, i, l.entries())
			open[s] = true
		case '-':
			require.True(t, open[s], "shard %s revoked while not assigned (at %d: %v)", s, i, l.entries())
			open[s] = false
		case 'h':
			require.True(t, open[s], "handler of shard %s outside its assignment (at %d: %v)", s, i, l.entries())
		}
	}
	if closed {
		for s, o := range open {
			require.False(t, o, "shard %s still assigned after Run returned", s)
		}
	}
}

// OnShardsAssigned comes before the first handler call of a shard,
// OnShardsRevoked after its reader stopped (revoked by the coordinator, or
// given up on leaving), each once per assignment.
func TestShardCallbacksFollowAssignmentAndRevocation(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 2)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0, 1)
	var ev events
	var l shardLog
	cfg := testConfig(f, rc, "m0", &ev)
	l.hook(t, &cfg)
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error { l.add(fmt.Sprintf("h%d", m.Shard)); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)

	xadd(t, rc, 0, "k", "a")
	xadd(t, rc, 1, "k", "b")
	eventually(t, func() bool { return l.count("h0") == 1 && l.count("h1") == 1 }, 5*time.Second, "both shards consumed")
	require.Equal(t, []string{"+0", "+1"}, l.entries()[:2], "one call with both shards, before any handler")

	f.setTarget("m0", 1) // revoke shard 0
	eventually(t, func() bool { return l.count("-0") == 1 }, 3*time.Second, "shard 0 revoked")
	require.True(t, ev.has(EventShardReleased, "m0", 0), "the callback follows the release")
	xadd(t, rc, 0, "k", "after-revoke")
	xadd(t, rc, 1, "k", "c")
	eventually(t, func() bool { return l.count("h1") == 2 }, 3*time.Second, "shard 1 still consumed")
	require.Zero(t, l.count("-1"))

	f.setTarget("m0", 0, 1) // shard 0 comes back
	eventually(t, func() bool { return l.count("+0") == 2 && l.count("h0") == 2 }, 5*time.Second, "shard 0 assigned again and read")

	require.NoError(t, stop())
	l.checkPairs(t, true)
	require.Equal(t, 2, l.count("-0"))
	require.Equal(t, 1, l.count("-1"), "revoked on leaving")
}

// A member the coordinator no longer knows stops every shard at once: each
// is revoked before the member rejoins and gets it assigned again.
func TestShardCallbacksOnFencing(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 2)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0, 1)
	var ev events
	var l shardLog
	cfg := testConfig(f, rc, "m0", &ev)
	l.hook(t, &cfg)
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error { l.add(fmt.Sprintf("h%d", m.Shard)); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return l.count("+0") == 1 && l.count("+1") == 1 }, 5*time.Second, "both shards assigned")

	f.expire("m0") // the next heartbeat answers UNKNOWN_MEMBER_ID
	eventually(t, func() bool { return l.count("-0") == 1 && l.count("-1") == 1 }, 5*time.Second, "every shard revoked when fenced")
	require.NotEmpty(t, ev.find(EventFenced))
	f.setTarget("m0", 0, 1)
	eventually(t, func() bool { return l.count("+0") == 2 && l.count("+1") == 2 }, 5*time.Second, "assigned again after rejoining")
	xadd(t, rc, 1, "k", "v")
	eventually(t, func() bool { return l.count("h1") == 1 }, 3*time.Second, "read after rejoining")

	require.NoError(t, stop())
	l.checkPairs(t, true)
}
