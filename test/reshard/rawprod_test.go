package reshard

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// rawBase is added to the raw producer's numbers to make its seqs: the two
// producers' seqs never meet in the recorder.
const rawBase = 1_000_000_000

// rawKey is the raw producer's partition key of its n-th entry.
func rawKey(n int64) string { return "raw-" + strconv.FormatInt(n%37, 10) }

// rawProducer is a producer that does not use the SDK: it fetches the
// routing once and keeps it, writes with XADD NOMKSTREAM, and fetches the
// routing again only when a write fails (nil reply: the shard stream is
// gone; an error) — or, with a routing of 0 shards, before every attempt.
// Entry n carries seq rawBase+n; a failed entry is retried with the same n.
type rawProducer struct {
	api *api
	rdb *redis.Client

	mu     sync.Mutex
	acked  map[int64]string // seq → entry id, for every XADD that returned an id
	routed []int            // shard counts of the routings it used, in order

	nilReplies atomic.Int64
	failures   atomic.Int64
	refreshes  atomic.Int64
	zeroWaits  atomic.Int64

	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

func (e *env) startRawProducer(rate int) *rawProducer {
	e.t.Helper()
	p := &rawProducer{api: e.api, acked: map[int64]string{}, done: make(chan struct{}),
		rdb: redis.NewClient(&redis.Options{Addr: e.redis.Addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond,
			ReadTimeout: time.Second, WriteTimeout: time.Second})}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go p.run(ctx, rate)
	e.t.Cleanup(func() { p.Stop() })
	return p
}

func (p *rawProducer) run(ctx context.Context, rate int) {
	defer close(p.done)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	var routing *protocol.ProducerRouting
	n := int64(1)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if routing == nil || routing.ShardCount == 0 {
			if routing != nil {
				p.zeroWaits.Add(1)
			}
			r, err := p.api.routing()
			if err != nil {
				continue
			}
			p.refreshes.Add(1)
			routing = &r
			p.mu.Lock()
			p.routed = append(p.routed, r.ShardCount)
			p.mu.Unlock()
			if r.ShardCount == 0 {
				continue
			}
		}
		key := rawKey(n)
		shard := int(protocol.Route(key, uint32(routing.ShardCount)))
		stream := protocol.StreamKey(prefix, shard)
		if shard < len(routing.Shards) && routing.Shards[shard].StreamKey != "" {
			stream = routing.Shards[shard].StreamKey
		}
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		id, err := p.rdb.XAdd(wctx, &redis.XAddArgs{Stream: stream, NoMkStream: true,
			Values: map[string]any{"seq": rawBase + n, "key": key}}).Result()
		cancel()
		switch {
		case err == nil:
			p.mu.Lock()
			p.acked[rawBase+n] = id
			p.mu.Unlock()
			n++
		case ctx.Err() != nil:
			return
		case errors.Is(err, redis.Nil):
			p.nilReplies.Add(1) // the stream is gone (retired): refresh, retry the same n
			routing = nil
		default:
			p.failures.Add(1)
			routing = nil
		}
	}
}

// Stop stops writing; idempotent.
func (p *rawProducer) Stop() {
	p.once.Do(func() {
		p.cancel()
		<-p.done
		_ = p.rdb.Close()
	})
}

// Acked returns the seqs Redis acknowledged.
func (p *rawProducer) Acked() map[int64]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[int64]string, len(p.acked))
	for k, v := range p.acked {
		out[k] = v
	}
	return out
}

// Routed returns the shard counts of the routings it fetched, in order.
func (p *rawProducer) Routed() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int(nil), p.routed...)
}
