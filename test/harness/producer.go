package harness

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk"
)

// ProducerOptions configures a SeqProducer.
type ProducerOptions struct {
	CoordinatorURLs []string
	RedisAddr       string
	Stream, Group   string
	Rate            int                    // entries per second
	Key             func(seq int64) string // partition key of entry seq (default "key-<seq mod 101>")
}

// SeqProducer publishes entries carrying sequence numbers 1, 2, … (field
// "seq") at a steady rate through the member SDK's producer. A failed
// publish is retried with the same number, so 1..Produced() were all
// accepted by Redis (a few possibly twice: a publish whose reply was lost).
type SeqProducer struct {
	produced atomic.Int64
	failures atomic.Int64
	cancel   context.CancelFunc
	done     chan struct{}
	once     sync.Once
}

// StartProducer starts publishing; it is stopped at test cleanup.
func StartProducer(t testing.TB, o ProducerOptions) *SeqProducer {
	t.Helper()
	if o.Key == nil {
		o.Key = func(seq int64) string { return "key-" + strconv.FormatInt(seq%101, 10) }
	}
	rdb := redis.NewClient(&redis.Options{Addr: o.RedisAddr, MaxRetries: 1, DialTimeout: 200 * time.Millisecond,
		ReadTimeout: time.Second, WriteTimeout: time.Second})
	p, err := membersdk.NewProducer(membersdk.ProducerConfig{CoordinatorURLs: o.CoordinatorURLs,
		StreamPrefix: o.Stream, ConsumerGroup: o.Group, Redis: rdb})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sp := &SeqProducer{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(sp.done)
		tick := time.NewTicker(time.Second / time.Duration(o.Rate))
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			seq := sp.produced.Load() + 1
			pctx, pcancel := context.WithTimeout(ctx, time.Second)
			_, err := p.Publish(pctx, o.Key(seq), map[string]any{"seq": seq})
			pcancel()
			if err == nil {
				sp.produced.Store(seq)
			} else {
				sp.failures.Add(1)
			}
		}
	}()
	t.Cleanup(func() {
		sp.Stop()
		_ = rdb.Close()
	})
	return sp
}

// Produced is the highest sequence number accepted by Redis so far.
func (sp *SeqProducer) Produced() int64 { return sp.produced.Load() }

// Failures counts failed publish attempts (each retried).
func (sp *SeqProducer) Failures() int64 { return sp.failures.Load() }

// Stop stops publishing and returns Produced(). It is idempotent.
func (sp *SeqProducer) Stop() int64 {
	sp.once.Do(func() {
		sp.cancel()
		<-sp.done
	})
	return sp.produced.Load()
}
