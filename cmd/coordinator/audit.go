package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/api"
)

// redisAudit appends audit records to a capped Redis stream (audit.redis-stream,
// XADD MAXLEN ~ audit.redis-maxlen). Records are queued and written by one
// goroutine so a slow or unreachable Redis never delays an answer; when the
// queue is full a record is dropped and a warning logged (the log line of
// the record is written regardless). Fields are api.AuditRecord.Fields:
// control characters escaped, caller-chosen ones prefixed "caller.".
type redisAudit struct {
	client redis.UniversalClient
	key    string
	maxLen int64
	log    *slog.Logger
	queue  chan api.AuditRecord
	done   chan struct{}
}

func newRedisAudit(client redis.UniversalClient, key string, maxLen int, log *slog.Logger) *redisAudit {
	a := &redisAudit{client: client, key: key, maxLen: int64(maxLen), log: log,
		queue: make(chan api.AuditRecord, 1024), done: make(chan struct{})}
	go a.run()
	return a
}

// Audit implements api.AuditSink.
func (a *redisAudit) Audit(r api.AuditRecord) {
	select {
	case a.queue <- r:
	default:
		a.log.Warn("audit stream queue full: record dropped from the Redis stream (it is in the log)",
			slog.String("key", a.key), slog.String("requestId", r.RequestID))
	}
}

func (a *redisAudit) run() {
	defer close(a.done)
	for r := range a.queue {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := a.client.XAdd(ctx, &redis.XAddArgs{Stream: a.key, MaxLen: a.maxLen, Approx: true, Values: r.Fields()}).Err()
		cancel()
		if err != nil {
			a.log.Warn("audit stream write failed (the record is in the log)", slog.String("key", a.key), slog.Any("err", err))
		}
	}
}

// Close writes what is queued (bounded by ctx) and stops.
func (a *redisAudit) Close(ctx context.Context) {
	close(a.queue)
	select {
	case <-a.done:
	case <-ctx.Done():
	}
}
