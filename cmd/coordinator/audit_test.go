package main

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/api"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// TestRedisAuditStream: records reach the capped stream with every field,
// and the stream stays near audit.redis-maxlen; control characters are
// escaped (a newline in requestedBy is stored as \n).
func TestRedisAuditStream(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.NewClient(nil)
	defer c.Close()
	a := newRedisAudit(c, "rsc:audit", 10, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for i := 0; i < 300; i++ {
		a.Audit(api.AuditRecord{Time: time.Unix(1700000000, 0), Principal: "alice", Method: "POST",
			Route: "/coord/v1/streams/:streamPrefix", Path: "/coord/v1/streams/orders", RequestID: "req-1",
			RequestedBy: "ali\nce", Reason: "why", Status: 201, Result: "ok", Duration: 12 * time.Millisecond,
			IP: "127.0.0.1"})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a.Close(ctx)
	n, err := c.XLen(ctx, "rsc:audit").Result()
	require.NoError(t, err)
	require.Greater(t, n, int64(0))
	require.Less(t, n, int64(300), "MAXLEN ~ trims the stream")
	last, err := c.XRevRangeN(ctx, "rsc:audit", "+", "-", 1).Result()
	require.NoError(t, err)
	require.Equal(t, map[string]any{
		"time": "2023-11-14T22:13:20Z", "principal": "alice", "method": "POST",
		"route": "/coord/v1/streams/:streamPrefix", "path": "/coord/v1/streams/orders", "caller.requestId": "req-1",
		"caller.requestedBy": `ali\nce`, "caller.reason": "why", "status": "201", "result": "ok", "durationMs": "12",
		"detail": "", "ip": "127.0.0.1",
	}, last[0].Values)
}
