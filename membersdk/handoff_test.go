package membersdk

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

// span is one handler run.
type span struct {
	member     string
	shard      int
	id         string
	epoch      int64
	start, end time.Time
}

type recorder struct {
	mu    sync.Mutex
	spans []span
	seen  map[string]int
}

func (r *recorder) handler(member string) Handler {
	return func(ctx context.Context, m Message) error {
		s := span{member: member, shard: m.Shard, id: m.ID, epoch: m.Epoch, start: time.Now()}
		time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond) // simulated work, not a wait
		s.end = time.Now()
		r.mu.Lock()
		r.spans = append(r.spans, s)
		if r.seen == nil {
			r.seen = map[string]int{}
		}
		r.seen[fmt.Sprintf("%d/%s", m.Shard, m.ID)]++
		r.mu.Unlock()
		return nil
	}
}

// handledBy reports whether member handled at least one entry of each of
// shards.
func (r *recorder) handledBy(member string, shards ...int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, shard := range shards {
		if !slices.ContainsFunc(r.spans, func(s span) bool { return s.member == member && s.shard == shard }) {
			return false
		}
	}
	return true
}

func (r *recorder) seenAll(ids map[string]bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id := range ids {
		if r.seen[id] == 0 {
			return false
		}
	}
	return true
}

// TestHandoffKeepsOneReaderPerShard moves shards between two members while a
// producer writes: nothing is lost and no shard is handled by two members at
// the same time.
func TestHandoffKeepsOneReaderPerShard(t *testing.T) {
	t.Parallel()
	const shards = 4
	rc := setupRedis(t, shards)
	f := newFakeCoord(t, 1)
	f.setTarget("a", 0, 1, 2, 3)
	var ev events
	var rec recorder
	ca, err := NewConsumer(testConfig(f, rc, "a", &ev), rec.handler("a"))
	require.NoError(t, err)
	stopA, _ := runConsumer(t, ca)

	var mu sync.Mutex
	produced := map[string]bool{}
	var stopProducing atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stopProducing.Load(); i++ {
			shard := i % shards
			id, err := rc.XAdd(context.Background(), &redis.XAddArgs{Stream: protocol.StreamKey(testStream, shard), Values: []any{"i", i}}).Result()
			if err != nil {
				t.Errorf("xadd: %v", err)
				return
			}
			mu.Lock()
			produced[fmt.Sprintf("%d/%s", shard, id)] = true
			mu.Unlock()
			time.Sleep(time.Millisecond) // the producer's pace, not a wait
		}
	}()

	eventually(t, func() bool { return rec.handledBy("a", 0, 1, 2, 3) }, 10*time.Second, "a handles every shard")
	f.setTarget("a", 0, 1)
	f.setTarget("b", 2, 3)
	cb, err := NewConsumer(testConfig(f, rc, "b", &ev), rec.handler("b"))
	require.NoError(t, err)
	stopB, _ := runConsumer(t, cb)
	eventually(t, func() bool { return ev.has(EventShardStarted, "b", 2) && ev.has(EventShardStarted, "b", 3) }, 5*time.Second, "b took 2 and 3")
	eventually(t, func() bool { return rec.handledBy("b", 2, 3) }, 10*time.Second, "b handles 2 and 3")

	// a leaves; b takes everything.
	f.setTarget("b", 0, 1, 2, 3)
	require.NoError(t, stopA())
	eventually(t, func() bool { return ev.has(EventShardStarted, "b", 0) && ev.has(EventShardStarted, "b", 1) }, 5*time.Second, "b took 0 and 1")
	eventually(t, func() bool { return rec.handledBy("b", 0, 1) }, 10*time.Second, "b handles 0 and 1")
	stopProducing.Store(true)
	wg.Wait()

	mu.Lock()
	all := produced
	mu.Unlock()
	eventually(t, func() bool { return rec.seenAll(all) }, 10*time.Second, "every produced entry handled")
	for s := range shards {
		eventually(t, func() bool { return pendingCount(t, rc, s) == 0 }, 3*time.Second, "shard %d fully acked", s)
	}
	require.NoError(t, stopB())

	// No overlap between members on one shard, and handoffs happened.
	rec.mu.Lock()
	defer rec.mu.Unlock()
	byShard := map[int][]span{}
	for _, s := range rec.spans {
		byShard[s.shard] = append(byShard[s.shard], s)
	}
	for shard, spans := range byShard {
		sort.Slice(spans, func(i, j int) bool { return spans[i].start.Before(spans[j].start) })
		lastEnd := map[string]time.Time{}
		for _, s := range spans {
			for m, end := range lastEnd {
				if m != s.member && end.After(s.start) {
					t.Fatalf("shard %d: %s started %s at %v while %s was still handling until %v", shard, s.member, s.id, s.start, m, end)
				}
			}
			if s.end.After(lastEnd[s.member]) {
				lastEnd[s.member] = s.end
			}
		}
	}
	members := map[int]map[string]bool{}
	for shard, spans := range byShard {
		members[shard] = map[string]bool{}
		for _, s := range spans {
			members[shard][s.member] = true
		}
	}
	for s := range shards {
		require.True(t, members[s]["a"] && members[s]["b"], "shard %d handed from a to b", s)
	}
	t.Logf("handled %d entries for %d produced", len(rec.spans), len(all))
}

// TestReassignedWhileDrainingWaitsForTheOldWorker: a shard revoked and given
// back at once is restarted only after the old worker has exited.
func TestReassignedWhileDrainingWaitsForTheOldWorker(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var active, maxActive atomic.Int32
	started := make(chan struct{}, 100)
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error {
		n := active.Add(1)
		for {
			old := maxActive.Load()
			if n <= old || maxActive.CompareAndSwap(old, n) {
				break
			}
		}
		started <- struct{}{}
		time.Sleep(300 * time.Millisecond) // a slow handler (simulated work), not a wait
		active.Add(-1)
		return nil
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	xadd(t, rc, 0, "k", "1")
	<-started
	f.setTarget("m0")
	eventually(t, func() bool { return ev.has(EventShardRevoking, "m0", 0) }, 2*time.Second, "revoking")
	f.setTarget("m0", 0)
	xadd(t, rc, 0, "k", "2")
	eventually(t, func() bool { return len(ev.find(EventShardStarted)) == 2 }, 3*time.Second, "restarted")
	eventually(t, func() bool { return pendingCount(t, rc, 0) == 0 }, 3*time.Second, "both handled")
	require.Equal(t, int32(1), maxActive.Load(), "never two handlers on the shard")
	rel := ev.find(EventShardReleased)
	st := ev.find(EventShardStarted)
	require.NotEmpty(t, rel)
	require.False(t, st[1].Time.Before(rel[0].Time), "second worker started after the first exited")
	require.NoError(t, stop())
}

func TestPerShardConcurrencyAndGlobalLimit(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 2)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0, 1)
	var ev events
	var active, maxActive atomic.Int32
	cfg := testConfig(f, rc, "m0", &ev)
	cfg.Concurrency = 3
	cfg.PerShardConcurrency = 2
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error {
		n := active.Add(1)
		for {
			old := maxActive.Load()
			if n <= old || maxActive.CompareAndSwap(old, n) {
				break
			}
		}
		time.Sleep(50 * time.Millisecond) // a slow handler (simulated work), not a wait
		active.Add(-1)
		return nil
	})
	require.NoError(t, err)
	for i := range 8 {
		xadd(t, rc, i%2, "i", i) // before start: each shard reads its 4 entries in one batch
	}
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 8 }, 5*time.Second, "all handled")
	require.Equal(t, int32(3), maxActive.Load(), "bounded by Concurrency across shards")
	require.NoError(t, stop())
}
