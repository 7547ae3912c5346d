package membersdk

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

// A scale-in retires shard 0 while m0 still owns it; the migration is rolled
// back: shard 0 is created again (with the group, from 0) and stays m0's.
// Entries written to it must be consumed.
func TestShardReappearsWhileOwned(t *testing.T) {
	base := setupRedis(t, 2)
	rc := redis.NewClient(base.Options())
	t.Cleanup(func() { _ = rc.Close() })
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
	require.NoError(t, base.Rename(ctx, key, key+"-retired").Err()) // retire
	eventually(t, func() bool { return logs.count("no longer exists") > 0 }, 10*time.Second, "the worker finds shard 0 missing")
	require.NoError(t, base.XGroupCreateMkStream(ctx, key, testGroup, "0").Err()) // rollback's provision
	xadd(t, base, 0, "k", "after-rollback")
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 2 }, 10*time.Second, "entry on the re-created shard consumed")
	require.NoError(t, stop())
}
