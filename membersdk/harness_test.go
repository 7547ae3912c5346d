package membersdk

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/stretchr/testify/require"
)

// setupRedis starts redis-server and provisions shards with the group.
func setupRedis(t *testing.T, shards int) *redis.Client {
	t.Helper()
	rc := redistest.Start(t).Client()
	for i := range shards {
		require.NoError(t, rc.XGroupCreateMkStream(context.Background(), protocol.StreamKey(testStream, i), testGroup, "0").Err())
	}
	return rc
}

// events records consumer events.
type events struct {
	mu  sync.Mutex
	all []Event
}

func (e *events) record(ev Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) has(typ EventType, member string, shard int) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.all {
		if ev.Type == typ && (member == "" || ev.MemberID == member) && (shard < 0 || ev.Shard == shard) {
			return true
		}
	}
	return false
}

func (e *events) find(typ EventType) []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Event
	for _, ev := range e.all {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

func testConfig(f *fakeCoord, rc redis.UniversalClient, member string, ev *events) ConsumerConfig {
	f.useRedis(rc)
	return ConsumerConfig{
		CoordinatorURLs: f.urls(),
		StreamPrefix:    testStream,
		ConsumerGroup:   testGroup,
		MemberID:        member,
		MemberName:      "test",
		Redis:           rc,
		RequestTimeout:  time.Second,
		RetryInterval:   50 * time.Millisecond,
		BlockTimeout:    100 * time.Millisecond,
		RetryBackoff:    10 * time.Millisecond,
		OnEvent:         ev.record,
	}
}

// runConsumer starts c.Run and returns a stop function that cancels it and
// returns Run's error, and a channel that yields Run's error once it returned.
func runConsumer(t *testing.T, c *Consumer) (stop func() error, done <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan struct{})
	var runErr error
	go func() { runErr = c.Run(ctx); close(finished) }()
	out := make(chan error, 1)
	go func() { <-finished; out <- runErr }()
	stop = func() error {
		cancel()
		select {
		case <-finished:
			return runErr
		case <-time.After(15 * time.Second):
			t.Errorf("consumer %s did not stop", c.MemberID())
			return nil
		}
	}
	t.Cleanup(func() { _ = stop() })
	return stop, out
}

func pendingCount(t *testing.T, rc *redis.Client, shard int) int64 {
	t.Helper()
	p, err := rc.XPending(context.Background(), protocol.StreamKey(testStream, shard), testGroup).Result()
	require.NoError(t, err)
	return p.Count
}

func xadd(t *testing.T, rc *redis.Client, shard int, values ...any) string {
	t.Helper()
	id, err := rc.XAdd(context.Background(), &redis.XAddArgs{Stream: protocol.StreamKey(testStream, shard), Values: values}).Result()
	require.NoError(t, err)
	return id
}

func ownedIn(req protocol.HeartbeatRequest) []int {
	out := protocol.Indexes(req.OwnedShards)
	slices.Sort(out)
	return out
}

// eventually waits for cond with a short poll.
func eventually(t *testing.T, cond func() bool, timeout time.Duration, msg string, args ...any) {
	t.Helper()
	require.Eventually(t, cond, timeout, 10*time.Millisecond, append([]any{msg}, args...)...)
}

// handled records every handler call.
type handled struct {
	mu    sync.Mutex
	calls []Message
}

func (h *handled) add(m Message) {
	h.mu.Lock()
	h.calls = append(h.calls, m)
	h.mu.Unlock()
}

func (h *handled) ids(shard int) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, m := range h.calls {
		if m.Shard == shard {
			out = append(out, m.ID)
		}
	}
	return out
}

func (h *handled) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.calls)
}
