package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redisstream/coordinator/membersdk"
)

// publish sends one entry with partition key key.
func publish(ctx context.Context, p *membersdk.Producer, key string, n int64) error {
	_, err := p.Publish(ctx, key, map[string]any{"key": key, "n": n, "at": time.Now().Format(time.RFC3339Nano)})
	return err
}

// produceCount publishes count entries (keys key-0 …) and returns.
func produceCount(ctx context.Context, p *membersdk.Producer, count int, log *slog.Logger) error {
	if count == 0 {
		return nil
	}
	for i := range count {
		key := fmt.Sprintf("key-%d", i)
		if err := publish(ctx, p, key, int64(i)); err != nil {
			return fmt.Errorf("publish %s: %w", key, err)
		}
	}
	log.Info("published", "entries", count)
	return nil
}

// produceRate publishes rate entries per second until ctx ends, spreading
// them over keys partition keys (key-0 … key-<keys-1>), so that every shard
// gets its share. A failed publish is logged and the producer goes on (the
// coordinator or Redis may be restarting); it reports its total every 10 s
// and when it stops.
func produceAtRate(ctx context.Context, p *membersdk.Producer, rate, keys int, log *slog.Logger) {
	start := time.Now()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	report := time.NewTicker(10 * time.Second)
	defer report.Stop()
	var sent, failed int64
	defer func() {
		log.Info("producer stopped", "entries", sent, "failed", failed, "after", time.Since(start).Round(time.Millisecond))
	}()
	log.Info("producing", "rate", rate, "keys", keys)
	for {
		select {
		case <-ctx.Done():
			return
		case <-report.C:
			log.Info("produced", "entries", sent, "failed", failed)
			continue
		case <-tick.C:
		}
		due := int64(time.Since(start).Seconds() * float64(rate))
		for sent < due && ctx.Err() == nil {
			key := fmt.Sprintf("key-%d", sent%int64(keys))
			if err := publish(ctx, p, key, sent); err != nil {
				if ctx.Err() != nil {
					return
				}
				failed++
				log.Warn("publish failed; the producer retries on its next tick", "key", key, "error", err)
				break
			}
			sent++
		}
	}
}
