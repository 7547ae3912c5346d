package membersdk

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

// lockedBuffer is a log sink safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

// readCounter counts the XREADGROUP and XAUTOCLAIM commands of a client on
// one stream key.
type readCounter struct {
	key string
	n   atomic.Int64
}

func (r *readCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (r *readCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (r *readCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if (strings.EqualFold(cmd.Name(), "xreadgroup") || isClaimScript(cmd)) && slices.Contains(cmd.Args(), any(r.key)) {
			r.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

func isClaimScript(cmd redis.Cmder) bool {
	args := cmd.Args()
	return len(args) >= 2 && (strings.EqualFold(cmd.Name(), "evalsha") || strings.EqualFold(cmd.Name(), "eval")) &&
		(args[1] == fence.ClaimScript.SHA || args[1] == fence.ClaimScript.Src)
}

// A shard whose stream key disappears while it is owned (renamed away here;
// a scale-in or an operator's DEL does the same): the worker recreates
// neither the stream nor the group, logs once, stops reading without
// retrying, keeps the shard in its heartbeats, and releases it when the
// coordinator revokes it. The other shard is read as before.
func TestShardStreamGoneWhileOwnedIsNotRecreatedNorRetried(t *testing.T) {
	t.Parallel()
	base := setupRedis(t, 2)
	rc := redis.NewClient(base.Options())
	t.Cleanup(func() { _ = rc.Close() })
	reads := &readCounter{key: protocol.StreamKey(testStream, 0)}
	rc.AddHook(reads)
	f := newFakeCoord(t, 2)
	f.setTarget("m0", 0, 1)
	var ev events
	logs := &lockedBuffer{}
	cfg := testConfig(f, rc, "m0", &ev)
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	xadd(t, base, 0, "k", "v")
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 1 }, 5*time.Second, "shard 0 read")

	ctx := context.Background()
	key := protocol.StreamKey(testStream, 0)
	require.NoError(t, base.Rename(ctx, key, key+"-moved").Err())
	const logged = "shard stream or consumer group no longer exists"
	eventually(t, func() bool { return logs.count(logged) == 1 }, 5*time.Second, "the missing shard is logged")
	readsThen := reads.n.Load()
	beatsThen := len(f.requests("m0"))

	xadd(t, base, 1, "k", "v")
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 2 }, 5*time.Second, "shard 1 still read")
	eventually(t, func() bool { return len(f.requests("m0")) >= beatsThen+3 }, 5*time.Second, "still heartbeating")
	last := f.requests("m0")
	require.Equal(t, []int{0, 1}, ownedIn(last[len(last)-1]), "shard 0 still owned until revoked")
	n, err := base.Exists(ctx, key).Result()
	require.NoError(t, err)
	require.Zero(t, n, "the stream was not recreated")
	require.Equal(t, 1, logs.count(logged), "logged once")
	require.Equal(t, readsThen, reads.n.Load(), "shard 0 not read again after it was found missing")
	require.False(t, ev.has(EventShardReleased, "m0", 0))

	f.setTarget("m0", 1)
	eventually(t, func() bool { return ev.has(EventShardReleased, "m0", 0) }, 5*time.Second, "released once revoked")
	eventually(t, func() bool {
		r, _ := f.lastRequest("m0")
		return slices.Equal(ownedIn(r), []int{1})
	}, 5*time.Second, "release reported")
	n, err = base.Exists(ctx, key).Result()
	require.NoError(t, err)
	require.Zero(t, n, "still not recreated")
	require.NoError(t, stop())
}
