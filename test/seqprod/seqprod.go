package seqprod

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redisstream/coordinator/membersdk"
)

// Producer is a running sequence producer.
type Producer struct {
	produced atomic.Int64
	failures atomic.Int64
	cancel   context.CancelFunc
	done     chan struct{}
	once     sync.Once
}

// Start publishes through p at about rate entries per second; key gives the
// partition key of entry seq; onErr (may be nil) sees every failed attempt.
func Start(p *membersdk.Producer, rate int, key func(seq int64) string, onErr func(seq int64, err error)) *Producer {
	return start(rate, onErr, func(ctx context.Context, seq int64) error {
		_, err := p.Publish(ctx, key(seq), map[string]any{"seq": seq})
		return err
	})
}

// StartIdempotent is Start through an idempotent producer (ProducerID set),
// the sequence number as the idempotent id: a retried number is written
// once, so each number is in the stream exactly once.
func StartIdempotent(p *membersdk.Producer, rate int, key func(seq int64) string, onErr func(seq int64, err error)) *Producer {
	return start(rate, onErr, func(ctx context.Context, seq int64) error {
		_, err := p.PublishOnce(ctx, key(seq), strconv.FormatInt(seq, 10), map[string]any{"seq": seq})
		return err
	})
}

func start(rate int, onErr func(seq int64, err error), publish func(ctx context.Context, seq int64) error) *Producer {
	ctx, cancel := context.WithCancel(context.Background())
	sp := &Producer{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(sp.done)
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			seq := sp.produced.Load() + 1
			pctx, pcancel := context.WithTimeout(ctx, time.Second)
			err := publish(pctx, seq)
			pcancel()
			switch {
			case err == nil:
				sp.produced.Store(seq)
			case ctx.Err() == nil:
				sp.failures.Add(1)
				if onErr != nil {
					onErr(seq, err)
				}
			}
		}
	}()
	return sp
}

// Produced is the highest sequence number accepted by Redis so far.
func (sp *Producer) Produced() int64 { return sp.produced.Load() }

// Failures counts failed publish attempts (each retried).
func (sp *Producer) Failures() int64 { return sp.failures.Load() }

// Stop stops publishing and returns Produced(). It is idempotent.
func (sp *Producer) Stop() int64 {
	sp.once.Do(func() {
		sp.cancel()
		<-sp.done
	})
	return sp.produced.Load()
}
