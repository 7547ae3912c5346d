package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// redisSnapshot is every key of a Redis with its TTL, as DUMP gives it: what an
// older RDB file brings back.
type redisSnapshot map[string]struct {
	dump string
	ttl  time.Duration
}

func takeSnapshot(t *testing.T, rc *redis.Client) redisSnapshot {
	t.Helper()
	ctx := context.Background()
	keys, err := rc.Keys(ctx, "*").Result()
	require.NoError(t, err)
	snap := redisSnapshot{}
	for _, k := range keys {
		d, err := rc.Dump(ctx, k).Result()
		require.NoError(t, err)
		ttl, err := rc.PTTL(ctx, k).Result()
		require.NoError(t, err)
		if ttl < 0 {
			ttl = 0
		}
		snap[k] = struct {
			dump string
			ttl  time.Duration
		}{d, ttl}
	}
	require.NotEmpty(t, snap)
	return snap
}

// restore makes rc hold exactly the snapshot again (a restart from an older RDB).
func (s redisSnapshot) restore(t *testing.T, rc *redis.Client) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, rc.FlushAll(ctx).Err())
	for k, v := range s {
		require.NoError(t, rc.RestoreReplace(ctx, k, v.ttl, v.dump).Err())
	}
}

// Redis comes back with an older snapshot (an RDB taken while member a held every shard)
// after the group moved on: b joined, a gave up half of the shards, epochs advanced. Both
// members keep heartbeating throughout; once with the coordinator staying up and once
// restarting at the same moment. Nobody is told to read a shard another member may still
// read, and grants resume.
func TestOlderSnapshotRestoredGivesNoShardTwice(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprintf("restart=%v", restart), func(t *testing.T) {
			e := start(t, map[string]string{"RSC_STORE_TRUST_EMPTY_STORE": "false"})
			e.c.CreateStream(t, "orders", 4)
			ttl := 1500 * time.Millisecond
			o := &lossOracle{ttl: ttl, deadline: map[string]time.Time{}}
			a, b := e.member("a"), e.member("b")
			for deadline := time.Now().Add(10 * time.Second); len(a.Shards()) < 4; time.Sleep(250 * time.Millisecond) {
				require.True(t, time.Now().Before(deadline), "a never got its shards")
				o.beat(t, a)
			}
			rc := e.redis.Client()
			require.NoError(t, rc.Save(context.Background()).Err()) // as an operator's backup would
			snap := takeSnapshot(t, rc)

			for deadline := time.Now().Add(10 * time.Second); len(b.Shards()) < 2 || len(a.Shards()) > 2; time.Sleep(250 * time.Millisecond) {
				require.True(t, time.Now().Before(deadline), "the shards never moved to b")
				o.beat(t, a, b)
				o.beat(t, b, a)
			}
			epochBefore := b.Epoch

			snap.restore(t, rc)
			if restart {
				e.coord.Restart()
			}
			end := time.Now().Add(4 * time.Second)
			for time.Now().Before(end) || len(a.Shards())+len(b.Shards()) < 4 {
				require.True(t, time.Now().Before(end.Add(10*time.Second)), "grants did not resume")
				o.beat(t, a, b)
				o.beat(t, b, a)
				time.Sleep(250 * time.Millisecond)
			}
			require.Empty(t, o.bad, "single-owner violations")
			require.NotEmpty(t, a.Shards())
			require.NotEmpty(t, b.Shards())
			t.Logf("b's epoch before the restore %d, after %d; coordinator logs loss: %v", epochBefore, b.Epoch,
				strings.Contains(e.coord.Logs(), "Redis lost coordinator state"))
		})
	}
}
