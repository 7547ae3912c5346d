package membersdk

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/internal/shardworker"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

// consumerNames lists the consumer names of the test group on shard s.
func consumerNames(t *testing.T, rc *redis.Client, s int) map[string]int64 {
	t.Helper()
	cs, err := rc.XInfoConsumers(context.Background(), protocol.StreamKey(testStream, s), testGroup).Result()
	require.NoError(t, err)
	out := map[string]int64{}
	for _, c := range cs {
		out[c.Name] = c.Pending
	}
	return out
}

// The script deletes only names without pending entries, never the
// caller's, and nothing at all unless the caller holds the fence.
func TestDropNamesScriptKeepsPendingAndChecksTheFence(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rc := setupRedis(t, 1)
	key := protocol.StreamKey(testStream, 0)
	fk := fence.Key(key, testGroup)
	require.NoError(t, rc.HSet(ctx, fk, "owner", "s", "token", 7).Err())
	xadd(t, rc, 0, "k", "v")
	require.NoError(t, rc.XReadGroup(ctx, &redis.XReadGroupArgs{Group: testGroup, Consumer: "dead-with-pending", Streams: []string{key, ">"}, Count: 1}).Err())
	for _, n := range []string{"dead-idle", "s"} {
		require.NoError(t, rc.XGroupCreateConsumer(ctx, key, testGroup, n).Err())
	}
	run := func(member, token string) ([]string, error) {
		cmd, err := shardworker.DropNamesScript.Run(ctx, rc, []string{key, fk}, []any{member, token, testGroup},
			func(ctx context.Context, args ...any) redis.Cmder { return redis.NewStringSliceCmd(ctx, args...) })
		if err != nil {
			return nil, err
		}
		return cmd.(*redis.StringSliceCmd).Val(), nil
	}

	for _, stale := range [][2]string{{"s", "6"}, {"other", "7"}, {"s", ""}} {
		_, err := run(stale[0], stale[1])
		require.ErrorIs(t, err, ErrFenced, "member %s token %q", stale[0], stale[1])
	}
	require.Len(t, consumerNames(t, rc, 0), 3, "a refused script deletes nothing")

	dropped, err := run("s", "7")
	require.NoError(t, err)
	require.Equal(t, []string{"dead-idle"}, dropped)
	require.Equal(t, map[string]int64{"dead-with-pending": 1, "s": 0}, consumerNames(t, rc, 0))
	require.Equal(t, int64(1), pendingCount(t, rc, 0), "the pending entry is still there")
}

// Twenty incarnations join, read without acknowledging and die (their
// lease expires) while a survivor works the shards: afterwards every entry
// was processed, nothing is pending and each shard has at most 3 names.
func TestDeadIncarnationsNamesAreDeleted(t *testing.T) {
	t.Parallel()
	const shards, incarnations, perRound = 4, 20, 5
	rc := setupRedis(t, shards)
	f := newFakeCoord(t, 1)
	all := []int{0, 1, 2, 3}
	f.setTarget("survivor", all...)
	var ev events
	var mu sync.Mutex
	handled := map[string]bool{}
	read := map[string]map[int]bool{} // incarnation → shards it was handed entries of
	survivor, err := NewConsumer(testConfig(f, rc, "survivor", &ev), func(ctx context.Context, m Message) error {
		mu.Lock()
		handled[fmt.Sprintf("%d/%s", m.Shard, m.ID)] = true
		mu.Unlock()
		return nil
	})
	require.NoError(t, err)
	stopSurvivor, _ := runConsumer(t, survivor)
	eventually(t, func() bool { return ev.has(EventShardStarted, "survivor", 3) }, 5*time.Second, "survivor started")

	produced := map[string]bool{}
	produce := func(s int) {
		for i := range perRound {
			produced[fmt.Sprintf("%d/%s", s, xadd(t, rc, s, "i", i))] = true
		}
	}
	for i := range incarnations {
		name := fmt.Sprintf("inc-%02d", i)
		mine := []int{i % shards, (i + 1) % shards}
		var rest []int
		for _, s := range all {
			if s != mine[0] && s != mine[1] {
				rest = append(rest, s)
			}
		}
		f.setTarget("survivor", rest...)
		f.setTarget(name, mine...)
		c, err := NewConsumer(testConfig(f, rc, name, &ev), func(ctx context.Context, m Message) error {
			mu.Lock()
			if read[name] == nil {
				read[name] = map[int]bool{}
			}
			read[name][m.Shard] = true
			mu.Unlock()
			<-ctx.Done() // never acknowledges
			return ctx.Err()
		})
		require.NoError(t, err)
		stop, _ := runConsumer(t, c)
		for _, s := range mine {
			eventually(t, func() bool { return ev.has(EventShardStarted, name, s) }, 10*time.Second, "%s started shard %d", name, s)
			produce(s)
			eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return read[name][s] }, 10*time.Second, "%s read shard %d", name, s)
		}
		f.expire(name) // dies: its lease expires, its fences are cleared
		f.setTarget("survivor", all...)
		go func() { _ = stop() }() // the process goes away whenever
	}

	eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for id := range produced {
			if !handled[id] {
				return false
			}
		}
		return true
	}, 30*time.Second, "every entry processed by the survivor")
	for s := range shards {
		eventually(t, func() bool { return pendingCount(t, rc, s) == 0 }, 10*time.Second, "shard %d: nothing pending", s)
		eventually(t, func() bool { return len(consumerNames(t, rc, s)) <= 3 }, 10*time.Second,
			"shard %d: at most 3 consumer names", s)
		t.Logf("shard %d names: %v", s, consumerNames(t, rc, s))
	}
	require.Positive(t, survivor.ConsumerNamesDeleted())
	require.NoError(t, stopSurvivor())
}
