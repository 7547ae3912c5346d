package e2e

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

type fence struct {
	owner string
	token int64
}

// fences reads the shard fences of orders/workers straight from Redis.
func fences(t *testing.T, e *env, n int) []fence {
	t.Helper()
	out := make([]fence, n)
	for s := range out {
		h, err := e.redis.Client().HGetAll(context.Background(), protocol.FenceKey(fmt.Sprintf("orders:%d", s), "workers")).Result()
		require.NoError(t, err)
		out[s].owner = h["owner"]
		if h["token"] != "" {
			out[s].token, err = strconv.ParseInt(h["token"], 10, 64)
			require.NoError(t, err)
		}
	}
	return out
}

// tokenSum is the number of fence writes so far (each moves one token by one).
func tokenSum(f []fence) int64 {
	var n int64
	for _, x := range f {
		n += x.token
	}
	return n
}

// checkFenced fails unless every shard a member reads is fenced to it.
func checkFenced(t *testing.T, e *env, ms ...*harness.Member) {
	t.Helper()
	f := fences(t, e, 4)
	for _, m := range ms {
		for _, s := range m.Shards() {
			require.Equal(t, m.ID, f[s].owner, "%s reads shard %d: its fence must name it", m.ID, s)
		}
	}
}

// The coordinator moves the shard fences in Redis on a hand-off and on a
// lease expiry, before it tells anyone, and only then (docs/PROTOCOL.md
// "Shard fence"). It also measures the Redis writes one ownership change
// costs (docs/BENCHMARKS.md "Fence writes").
func TestFenceMovesWithOwnershipInRedis(t *testing.T) {
	e := start(t, nil)
	e.c.CreateStream(t, "orders", 4)
	a, b := e.member("a"), e.member("b")
	a.Beat(t)
	a.Beat(t)
	require.Len(t, a.Shards(), 4)
	f := fences(t, e, 4)
	for s := range f {
		require.Equal(t, fence{"a", 1}, f[s], "shard %d granted to a", s)
	}
	fenceKeys, err := e.redis.Client().Keys(context.Background(), "*fence*").Result()
	require.NoError(t, err)
	require.Len(t, fenceKeys, 4)
	for _, k := range fenceKeys {
		require.True(t, strings.HasPrefix(k, "{orders:"), "fence key %q lives beside the stream, not under the store's key prefix", k)
	}

	// b joins; a is told to revoke two shards but still drains them: the fences stay a's.
	b.Beat(t)
	b.Beat(t)
	w0, s0 := coordCounts(t, e)
	a.Beat(t)
	require.Len(t, a.Draining, 2)
	moving := keys(a.Draining)
	require.Equal(t, f, fences(t, e, 4), "revoke told, nothing released: no fence moves")
	w, sc := coordCounts(t, e)
	revokeWrites, revokeScripts := w-w0, sc-s0

	// a releases: the released shards' fences are cleared, and name nobody until b is told.
	a.Release()
	w1, s1 := coordCounts(t, e)
	require.Equal(t, protocol.StatusOK, a.Beat(t).Status)
	w, sc = coordCounts(t, e)
	releaseWrites, releaseScripts := w-w1, sc-s1
	f = fences(t, e, 4)
	for _, s := range moving {
		require.Equal(t, fence{"", 2}, f[s], "shard %d released by a", s)
	}
	checkFenced(t, e, a)

	w2, s2 := coordCounts(t, e)
	require.Equal(t, protocol.StatusOK, b.Beat(t).Status)
	w, sc = coordCounts(t, e)
	grantWrites, grantScripts := w-w2, sc-s2
	require.ElementsMatch(t, moving, b.Shards())
	f = fences(t, e, 4)
	for _, s := range moving {
		require.Equal(t, fence{"b", 3}, f[s], "shard %d granted to b", s)
	}
	checkFenced(t, e, a, b)
	t.Logf("per decision, EVALSHA calls / write commands in INFO commandstats (script-internal included): "+
		"revoke told (no holder change) %d/%d; release of %d shards %d/%d; grant of %d shards %d/%d",
		revokeScripts, revokeWrites, len(moving), releaseScripts, releaseWrites, len(moving), grantScripts, grantWrites)
	// One fence script call (HINCRBY + HSET inside) per shard whose holder changes, on top of
	// the decision's own group write.
	n := int64(len(moving))
	require.Equal(t, revokeScripts+n, releaseScripts, "release: the group write plus one fence script per shard")
	require.Equal(t, revokeScripts+n, grantScripts, "grant: the group write plus one fence script per shard")
	require.Equal(t, revokeWrites+3*n, releaseWrites, "each fence script is EVALSHA + HINCRBY + HSET")
	require.Equal(t, revokeWrites+3*n, grantWrites, "each fence script is EVALSHA + HINCRBY + HSET")

	// Steady heartbeats move no fence.
	before := tokenSum(fences(t, e, 4))
	beatAll(t, 5, a, b)
	require.Equal(t, before, tokenSum(fences(t, e, 4)))

	// a goes silent: when its lease runs out its fences are cleared (or move to b), never
	// left naming a.
	held := a.Shards()
	prev := fences(t, e, 4)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && e.members(t)["a"].State != protocol.MemberExpired {
		b.Beat(t)
		checkFenced(t, e, b)
		time.Sleep(100 * time.Millisecond)
	}
	require.Equal(t, protocol.MemberExpired, e.members(t)["a"].State, "a not expired within 10 s of going silent")
	f = fences(t, e, 4)
	for _, s := range held {
		require.NotEqual(t, "a", f[s].owner, "shard %d: a's lease ran out", s)
		require.Greater(t, f[s].token, prev[s].token)
	}
	for time.Now().Before(deadline) && len(b.Shards()) < 4 {
		b.Beat(t)
		time.Sleep(50 * time.Millisecond)
	}
	require.Len(t, b.Shards(), 4, "b not granted a's shards within 10 s")
	checkFenced(t, e, b)
	for _, s := range held {
		require.Equal(t, fence{"b", prev[s].token + 2}, fences(t, e, 4)[s], "shard %d: cleared at a's expiry, then granted to b", s)
	}
}

// cmdCalls returns the calls of one command from INFO commandstats.
func cmdCalls(t *testing.T, e *env, cmd string) int64 {
	t.Helper()
	info, err := e.redis.Client().Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	for _, line := range strings.Split(info, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_"+cmd+":calls=")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.Split(rest, ",")[0], 10, 64)
		require.NoError(t, err)
		return n
	}
	return 0
}

// nodeRenewals sums the renewal counters of the coordinator's node records: each node
// confirmation round is one EVALSHA whose script runs one HINCRBY and one HSET (the node
// registry entry; and PEXPIREs and reads, which writeCommands does not count). They run in the background every lease/18, so the
// per-decision counts below leave them out.
func nodeRenewals(t *testing.T, e *env) int64 {
	t.Helper()
	ctx := context.Background()
	keys, err := e.redis.Client().Keys(ctx, "*:node:*").Result()
	require.NoError(t, err)
	var total int64
	for _, k := range keys {
		n, err := e.redis.Client().HGet(ctx, k, "renews").Int64()
		if errors.Is(err, redis.Nil) {
			continue
		}
		require.NoError(t, err)
		total += n
	}
	return total
}

// coordCounts returns writeCommands and the EVALSHA count, both without the background node
// renewals (EVALSHA + HINCRBY + HSET each). It reads the renewal counters before and after
// INFO commandstats and tries again when a renewal ran in between, so the three agree.
func coordCounts(t *testing.T, e *env) (writes, scripts int64) {
	t.Helper()
	for {
		r := nodeRenewals(t, e)
		w, sc := writeCommands(t, e), cmdCalls(t, e, "evalsha")
		if nodeRenewals(t, e) == r {
			return w - 3*r, sc - r
		}
	}
}
