package membersdk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// sumPipeline is the handler these tests run: per entry, one output entry
// and a running sum per key, in the entry's transaction.
func sumPipeline(calls *handled) Handler {
	return func(ctx context.Context, m Message) error {
		calls.add(m)
		if err := m.Tx.XAdd(m.Tx.Key("out"), map[string]any{"from": m.ID}); err != nil {
			return err
		}
		return m.Tx.HIncrBy(m.Tx.Key("sums"), fmt.Sprint(m.Values["k"]), 1)
	}
}

func txConfig(f *fakeCoord, rc redis.UniversalClient, member string, ev *events) ConsumerConfig {
	cfg := testConfig(f, rc, member, ev)
	cfg.Transactions = TxConfig{Enabled: true}
	return cfg
}

// outputs are the output entries of shard 0's pipeline, by input id.
func outputs(t *testing.T, rc *redis.Client) map[string]int {
	t.Helper()
	got, err := rc.XRange(context.Background(), "{"+protocol.StreamKey(testStream, 0)+"}:out", "-", "+").Result()
	require.NoError(t, err)
	out := map[string]int{}
	for _, m := range got {
		out[fmt.Sprint(m.Values["from"])]++
	}
	return out
}

// Each entry's output and sum land with its acknowledgement: every entry
// once, nothing pending.
func TestTxCommitsWritesWithTheAck(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var calls handled
	c, err := NewConsumer(txConfig(f, rc, "m0", &ev), sumPipeline(&calls))
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	var ids []string
	for i := range 20 {
		ids = append(ids, xadd(t, rc, 0, "k", i%3))
	}
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 20 }, 5*time.Second, "20 committed")
	require.NoError(t, stop())
	out := outputs(t, rc)
	require.Len(t, out, 20)
	for _, id := range ids {
		require.Equal(t, 1, out[id], id)
	}
	sums := rc.HGetAll(context.Background(), "{"+protocol.StreamKey(testStream, 0)+"}:sums").Val()
	require.Equal(t, map[string]string{"0": "7", "1": "7", "2": "6"}, sums)
	require.Zero(t, pendingCount(t, rc, 0))
}

// A member frozen past its lease between its in-process check and its
// commit: the fence refuses the commit (nothing written, the entry pending),
// and the new owner processes the entry once.
func TestTxFrozenOwnersCommitIsRefusedByTheFence(t *testing.T) {
	t.Parallel()
	var calls handled
	h := newHandover(t, "commit", sumPipeline(&calls), func(c *ConsumerConfig) { c.Transactions = TxConfig{Enabled: true} })
	h.start()
	id := xadd(t, h.rc, 0, "k", "a")
	b := h.freezeAndHandOver(sumPipeline(&calls), func(c *ConsumerConfig) { c.Transactions = TxConfig{Enabled: true} })
	close(h.resume)
	eventually(t, func() bool { return len(h.fencedEvents("a")) == 1 }, 5*time.Second, "a's commit refused by the fence")
	require.ErrorIs(t, h.fencedEvents("a")[0].Err, ErrFenced)
	require.Empty(t, outputs(t, h.rc), "nothing of a's commit landed")
	require.Equal(t, map[string]int64{"a": 1}, pendingOf(t, h.rc, 0))
	close(h.bGo)
	eventually(t, func() bool { return h.ev.has(EventAcked, "b", 0) }, 5*time.Second, "b committed the entry")
	require.Equal(t, map[string]int{id: 1}, outputs(t, h.rc), "one output: b's")
	require.Equal(t, "1", h.rc.HGet(context.Background(), "{"+protocol.StreamKey(testStream, 0)+"}:sums", "a").Val())
	require.Zero(t, pendingCount(t, h.rc, 0))
	require.Equal(t, []string{id, id}, calls.ids(0), "handled by a (refused) then by b")
	require.Zero(t, b.FencedWrites())
}

// The writes of a failed attempt are dropped; the retry's land once.
func TestTxFailedAttemptWritesNothing(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var calls handled
	pipeline := sumPipeline(&calls)
	c, err := NewConsumer(txConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error {
		if err := pipeline(ctx, m); err != nil {
			return err
		}
		if m.DeliveryCount == 1 {
			return errors.New("transient")
		}
		return nil
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	id := xadd(t, rc, 0, "k", "a")
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 1 }, 5*time.Second, "committed on the retry")
	require.NoError(t, stop())
	require.Equal(t, 2, calls.count())
	require.Equal(t, map[string]int{id: 1}, outputs(t, rc))
}

// Bad input at the call: a write after the handler returned, a key of
// another slot on Cluster (here: not Cluster, any key), past the bounds.
// Nothing is queued by a refused write.
func TestTxRefusesWritesAtTheCall(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	cfg := txConfig(f, rc, "m0", &ev)
	cfg.Transactions.MaxWrites = 2
	var mu sync.Mutex
	var kept *Tx
	var tooMany error
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error {
		mu.Lock()
		defer mu.Unlock()
		kept = m.Tx
		require.NoError(t, m.Tx.Set(m.Tx.Key("a"), "1", 0))
		require.NoError(t, m.Tx.Set("any-key-on-one-redis", "2", time.Minute))
		tooMany = m.Tx.Set(m.Tx.Key("c"), "3", 0)
		return nil
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	xadd(t, rc, 0, "k", "v")
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 1 }, 5*time.Second, "committed")
	require.NoError(t, stop())
	mu.Lock()
	defer mu.Unlock()
	require.ErrorIs(t, tooMany, ErrTxTooLarge)
	require.Contains(t, tooMany.Error(), "Transactions.MaxWrites")
	ctx := context.Background()
	require.Equal(t, "1", rc.Get(ctx, "{"+protocol.StreamKey(testStream, 0)+"}:a").Val())
	require.Equal(t, "2", rc.Get(ctx, "any-key-on-one-redis").Val())
	require.Zero(t, rc.Exists(ctx, "{"+protocol.StreamKey(testStream, 0)+"}:c").Val(), "the refused write was not queued")
	err = kept.Set(kept.Key("late"), "x", 0)
	require.ErrorIs(t, err, ErrTxClosed)
	require.Contains(t, err.Error(), "the handler returned")
	require.ErrorIs(t, kept.Commit(ctx), ErrTxClosed)
	require.Zero(t, rc.Exists(ctx, "{"+protocol.StreamKey(testStream, 0)+"}:late").Val())
}

// Commit inside the handler commits at once and says so; the entry is not
// acknowledged a second time when the handler returns.
func TestTxCommitInsideTheHandler(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var calls handled
	pipeline := sumPipeline(&calls)
	commitErr := make(chan error, 1)
	c, err := NewConsumer(txConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error {
		if err := pipeline(ctx, m); err != nil {
			return err
		}
		err := m.Tx.Commit(ctx)
		commitErr <- err
		if err == nil {
			require.ErrorIs(t, m.Tx.Set(m.Tx.Key("after"), "x", 0), ErrTxClosed, "a committed Tx takes no more writes")
		}
		return err
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	id := xadd(t, rc, 0, "k", "a")
	require.NoError(t, <-commitErr)
	require.Equal(t, map[string]int{id: 1}, outputs(t, rc), "landed before the handler returned")
	require.Zero(t, pendingCount(t, rc, 0))
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 1 }, 5*time.Second, "one ACKED")
	require.NoError(t, stop())
	require.Len(t, ev.find(EventAcked), 1)
}

// A write Redis would refuse (HINCRBY on a string key) rejects the whole
// commit: nothing written, the entry stays pending and is delivered again;
// once the data is fixed it commits.
func TestTxRejectedCommitWritesNothing(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	sums := "{" + protocol.StreamKey(testStream, 0) + "}:sums"
	require.NoError(t, rc.Set(ctx, sums, "not a hash", 0).Err())
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var calls handled
	cfg := txConfig(f, rc, "m0", &ev)
	cfg.MaxDeliveries = 100
	c, err := NewConsumer(cfg, sumPipeline(&calls))
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	id := xadd(t, rc, 0, "k", "a")
	eventually(t, func() bool {
		for _, e := range ev.find(EventAckRefused) {
			if errors.Is(e.Err, ErrTxRejected) {
				return true
			}
		}
		return false
	}, 5*time.Second, "the commit rejected")
	require.Empty(t, outputs(t, rc), "nothing written")
	require.EqualValues(t, 1, pendingCount(t, rc, 0))
	require.NoError(t, rc.Del(ctx, sums).Err())
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 1 }, 10*time.Second, "delivered again and committed")
	require.NoError(t, stop())
	require.Equal(t, map[string]int{id: 1}, outputs(t, rc))
}

// A member stopped while its handler has queued writes but not returned
// (a crash, as far as Redis can tell): nothing of it lands, the entry stays
// pending.
func TestTxStopBeforeCommitLeavesNothing(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var calls handled
	pipeline := sumPipeline(&calls)
	queued := make(chan struct{})
	c, err := NewConsumer(txConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error {
		if err := pipeline(ctx, m); err != nil {
			return err
		}
		close(queued)
		<-ctx.Done() // stopped with the writes queued
		return nil
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	xadd(t, rc, 0, "k", "a")
	<-queued
	_ = stop()
	require.Empty(t, outputs(t, rc))
	require.EqualValues(t, 1, pendingCount(t, rc, 0))
	require.False(t, ev.has(EventAcked, "m0", 0))
}

// On Redis Cluster a write outside the input shard's slot is refused at the
// call, naming the key and the rule; Tx.Key names keys that qualify, and
// the commit runs as one script on the shard's node.
func TestTxOnRedisClusterKeepsToTheShardsSlot(t *testing.T) {
	t.Parallel()
	addr := startClusterNode(t)
	plain := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = plain.Close() })
	ctx := context.Background()
	require.NoError(t, plain.XGroupCreateMkStream(ctx, protocol.StreamKey(testStream, 0), testGroup, "0").Err())
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr}})
	t.Cleanup(func() { _ = cc.Close() })
	f := newFakeCoord(t, 1)
	f.useRedis(plain)
	f.setTarget("m0", 0)
	var ev events
	var calls handled
	pipeline := sumPipeline(&calls)
	slotErr := make(chan error, 1)
	c, err := NewConsumer(txConfig(f, cc, "m0", &ev), func(ctx context.Context, m Message) error {
		slotErr <- m.Tx.XAdd("results", map[string]any{"from": m.ID})
		return pipeline(ctx, m)
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	id := xadd(t, plain, 0, "k", "a")
	err = <-slotErr
	require.ErrorIs(t, err, ErrTxSlot)
	require.Contains(t, err.Error(), `"results"`)
	require.Contains(t, err.Error(), "Tx.Key")
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 1 }, 10*time.Second, "committed on the Cluster")
	require.NoError(t, stop())
	require.Equal(t, map[string]int{id: 1}, outputs(t, plain))
	require.Zero(t, plain.Exists(ctx, "results").Val())
}

// On a Redis Cluster of three masters the commit runs on the node of the
// shard's slot, with its outputs named by Tx.Key.
func TestTxOnAThreeNodeRedisCluster(t *testing.T) {
	t.Parallel()
	cl := redistest.StartCluster(t, 3)
	cc := cl.Client()
	ctx := context.Background()
	key := protocol.StreamKey(testStream, 0)
	require.NoError(t, cc.XGroupCreateMkStream(ctx, key, testGroup, "0").Err())
	node, err := cc.MasterForKey(ctx, key) // the fake coordinator fences on the shard's node
	require.NoError(t, err)
	f := newFakeCoord(t, 1)
	f.useRedis(node)
	f.setTarget("m0", 0)
	var ev events
	var calls handled
	c, err := NewConsumer(txConfig(f, cc, "m0", &ev), sumPipeline(&calls))
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	var ids []string
	for i := range 10 {
		ids = append(ids, cc.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{"k", i % 2}}).Val())
	}
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 10 }, 10*time.Second, "10 committed")
	require.NoError(t, stop())
	got, err := cc.XRange(ctx, "{"+key+"}:out", "-", "+").Result()
	require.NoError(t, err)
	require.Len(t, got, 10)
	require.Equal(t, map[string]string{"0": "5", "1": "5"}, cc.HGetAll(ctx, "{"+key+"}:sums").Val())
	p, err := cc.XPending(ctx, key, testGroup).Result()
	require.NoError(t, err)
	require.Zero(t, p.Count)
}

// evalCounter counts the calls of the commit script.
type evalCounter struct{ n atomic.Int64 }

func (x *evalCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (x *evalCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (x *evalCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if a := cmd.Args(); strings.EqualFold(cmd.Name(), "evalsha") && len(a) > 1 && a[1] == fence.CommitScript.SHA {
			x.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

// The entries of one read commit in one script call; with bounds smaller
// than the batch's writes it is split into calls within the bounds.
func TestTxBatchCommitsInOneRoundTripWithinBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		maxWrites int
		calls     int64
	}{{0, 1}, {4, 4}} { // 8 entries of 2 writes: 16 writes, in 1 call, or in 4 of 4
		rc := setupRedis(t, 1)
		var ids []string
		for i := range 8 {
			ids = append(ids, xadd(t, rc, 0, "k", i))
		}
		counted := redis.NewClient(rc.Options())
		t.Cleanup(func() { _ = counted.Close() })
		calls := &evalCounter{}
		counted.AddHook(calls)
		f := newFakeCoord(t, 1)
		f.useRedis(rc)
		f.setTarget("m0", 0)
		var ev events
		var handledBy handled
		cfg := txConfig(f, counted, "m0", &ev)
		cfg.Transactions.MaxWrites = tc.maxWrites
		c, err := NewConsumer(cfg, sumPipeline(&handledBy))
		require.NoError(t, err)
		c.maxAckDelay = time.Hour // no early commit of a slow batch: the read's 8 entries commit at its end
		stop, _ := runConsumer(t, c)
		eventually(t, func() bool { return len(ev.find(EventAcked)) == 8 }, 5*time.Second, "8 committed")
		require.NoError(t, stop())
		require.Equal(t, tc.calls, calls.n.Load(), "MaxWrites %d", tc.maxWrites)
		out := outputs(t, rc)
		for _, id := range ids {
			require.Equal(t, 1, out[id])
		}
	}
}
