package failover

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// lagSeries is the coordinator's rsc_group_lag of orders/workers.
const lagSeries = `rsc_group_lag{consumer_group="workers",stream_prefix="orders"}`

// waitLag waits until lagSeries reads want (a scrape that fails, or before
// the first sample, counts as not yet).
func (w *world) waitLag(want float64, within time.Duration, what string) {
	w.t.Helper()
	deadline := time.Now().Add(within)
	var last float64
	for time.Now().Before(deadline) {
		if v, ok, err := w.c.Series(lagSeries); err == nil && ok {
			if last = v; v == want {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	w.t.Fatalf("%s: rsc_group_lag of orders/workers is %g, want %g (waited %s)", what, last, want, within)
}

// A promoted replica can hold a consumer group's entries-read counter behind
// its primary's, and Redis then reports a lag too high for good (seen on
// Redis 7.0 after a failover). Here the primary carries such a counter on
// one shard of a group that has read everything (set with XGROUP SETID …
// ENTRIESREAD, which replicates), the metric shows the phantom lag, and the
// primary is killed: once the replica is promoted the coordinator sees the
// primary changed, recounts the group's counters, and rsc_group_lag reads 0
// — with the group's position and pending entries unchanged.
func TestLagRecountedAfterAFailover(t *testing.T) {
	s := redistest.StartSentinels(t)
	env := sentinelEnv(s)
	env["RSC_METRICS_SAMPLE_INTERVAL"] = "300ms"
	w := startWorld(t, membersdk.RedisOptions{MasterName: redistest.SentinelMaster, SentinelAddrs: s.SentinelAddrs()}, s.Primary(), env)
	w.consume("a")
	stop := make(chan struct{})
	produced := w.produce(stop, "p", 1)
	require.Eventually(t, func() bool { return w.handled() >= 60 }, 30*time.Second, 50*time.Millisecond, "entries are handled")
	close(stop)
	produced.Wait()

	ctx := context.Background()
	rc := w.redis()
	// The group has read every shard to its end (nothing new is published).
	var key string
	var group redis.XInfoGroup
	require.Eventually(t, func() bool {
		key = ""
		for shard := 0; shard < 4; shard++ {
			k := fmt.Sprintf("orders:%d", shard)
			st, err := rc.XInfoStream(ctx, k).Result()
			if err != nil {
				return false
			}
			gs, err := rc.XInfoGroups(ctx, k).Result()
			if err != nil {
				return false
			}
			for _, g := range gs {
				if g.Name != "workers" {
					continue
				}
				if g.LastDeliveredID != st.LastGeneratedID {
					return false
				}
				if key == "" && g.EntriesRead >= 8 {
					key, group = k, g
				}
			}
		}
		return key != ""
	}, 30*time.Second, 100*time.Millisecond, "the group reads every shard to its end")
	w.waitLag(0, 30*time.Second, "before the stale counter")

	require.NoError(t, rc.Do(ctx, "XGROUP", "SETID", key, "workers", group.LastDeliveredID, "ENTRIESREAD", group.EntriesRead-7).Err())
	w.waitLag(7, 30*time.Second, "with the stale counter on the primary")
	pending, err := rc.XPending(ctx, key, "workers").Result()
	require.NoError(t, err)

	from, to, took := s.KillPrimary()
	t.Logf("primary %s killed, %s promoted after %s", from, to, took.Round(time.Millisecond))
	promoted := time.Now()
	w.waitLag(0, 30*time.Second, "after the failover")
	t.Logf("rsc_group_lag back to 0 %s after the promotion", time.Since(promoted).Round(time.Millisecond))
	logs := w.coord.Logs()
	require.Contains(t, logs, "the Redis primary changed")
	require.Contains(t, logs, "recounted the lag counters of a stream")

	gs, err := rc.XInfoGroups(ctx, key).Result()
	require.NoError(t, err)
	for _, g := range gs {
		if g.Name == "workers" {
			require.Equal(t, group.LastDeliveredID, g.LastDeliveredID, "the group did not move")
			require.Equal(t, group.EntriesRead, g.EntriesRead, "its counter is exact again")
		}
	}
	after, err := rc.XPending(ctx, key, "workers").Result()
	require.NoError(t, err)
	require.LessOrEqual(t, after.Count, pending.Count, "no entry became pending again")
}
