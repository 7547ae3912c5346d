package membersdk

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/stretchr/testify/require"
)

// A read's entries are acknowledged together: far fewer XACK commands than
// entries, every entry acknowledged once, in stream order per shard.
func TestAcksAreBatchedPerRead(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rc := srv.Client()
	ctx := context.Background()
	require.NoError(t, rc.XGroupCreateMkStream(ctx, protocol.StreamKey(testStream, 0), testGroup, "0").Err())
	const n = 64
	var ids []string
	for range n {
		ids = append(ids, xadd(t, rc, 0, "k", "v"))
	}
	srv.ResetStats()

	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var h handled
	cfg := testConfig(f, rc, "m0", &ev)
	cfg.BatchSize = 16
	c, err := NewConsumer(cfg, func(_ context.Context, m Message) error { h.add(m); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return h.count() == n && pendingCount(t, rc, 0) == 0 }, 10*time.Second, "all handled and acknowledged")
	require.NoError(t, stop())

	require.Equal(t, ids, h.ids(0), "handled once each, in stream order")
	acked := map[string]int{}
	for _, e := range ev.find(EventAcked) {
		acked[e.EntryID]++
	}
	require.Len(t, acked, n)
	for id, k := range acked {
		require.Equal(t, 1, k, "ACKED events for %s", id)
	}
	xacks := srv.CommandCalls()["xack"]
	require.Positive(t, xacks)
	require.Less(t, xacks, int64(n/2), "one XACK per read of 16 entries, not one per entry")
}

// The batched XACK checks ownership once, right before it is sent: an entry
// whose handler succeeded earlier in the batch is not acknowledged once the
// self-fence deadline has passed, even though it was fine when it finished.
func TestBatchedAckIsRefusedAfterTheSelfFenceDeadline(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var offset atomic.Int64 // the member's clock runs ahead by this much
	var ev events
	cfg := testConfig(f, rc, "m0", &ev)
	var calls atomic.Int32
	c, err := NewConsumer(cfg, func(_ context.Context, m Message) error {
		if calls.Add(1) == 2 {
			// The second entry of the batch: the member was paused past its
			// self-fence deadline while this handler ran.
			offset.Store(int64(time.Hour))
		}
		return nil
	})
	require.NoError(t, err)
	c.setClock(func() time.Time { return time.Now().Add(time.Duration(offset.Load())) })
	c.maxAckDelay = 100 * time.Hour // keep the first entry's ack queued for the batch
	// Both entries exist before the shard starts, so one read returns both.
	first := xadd(t, rc, 0, "k", "1")
	second := xadd(t, rc, 0, "k", "2")
	runConsumer(t, c)
	eventually(t, func() bool { return len(ev.find(EventAckRefused)) == 2 }, 5*time.Second, "both refused")
	refused := map[string]bool{}
	for _, e := range ev.find(EventAckRefused) {
		refused[e.EntryID] = true
	}
	require.True(t, refused[first] && refused[second], "refused: %v", refused)
	require.Empty(t, ev.find(EventAcked))
	require.Equal(t, int64(2), pendingCount(t, rc, 0), "nothing acknowledged after the deadline")
}

// Stopping the consumer, or revoking a shard, ends a reader blocked in
// XREADGROUP at once (CLIENT UNBLOCK) instead of waiting out BlockTimeout,
// and leaves the connection pool healthy: the other shard keeps reading and
// the member does not open a connection per revoke.
func TestStopAndRevokeDoNotWaitOutABlockedRead(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 2)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0, 1)
	var ev events
	var h handled
	cfg := testConfig(f, rc, "m0", &ev)
	cfg.BlockTimeout = 5 * time.Minute // a stop that waits it out fails the test below
	c, err := NewConsumer(cfg, func(_ context.Context, m Message) error { h.add(m); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) && ev.has(EventShardStarted, "m0", 1) }, 5*time.Second, "started")

	for round := range 5 {
		eventually(t, func() bool { return blockedReads(t, rc) == 2 }, 10*time.Second, "both readers blocked in XREADGROUP, round %d", round)
		f.setTarget("m0", 0)
		eventually(t, func() bool { return len(ev.find(EventShardReleased)) == round+1 }, 30*time.Second, "shard 1 released, round %d", round)
		f.setTarget("m0", 0, 1)
		eventually(t, func() bool { return len(ev.find(EventShardStarted)) == round+3 }, 30*time.Second, "shard 1 started again, round %d", round)
	}
	id := xadd(t, rc, 0, "k", "v")
	eventually(t, func() bool { return len(h.ids(0)) == 1 && pendingCount(t, rc, 0) == 0 }, 10*time.Second, "shard 0 still reads and acks")
	require.Equal(t, []string{id}, h.ids(0))
	require.LessOrEqual(t, int(rc.PoolStats().TotalConns), 8, "connections are reused, not replaced per revoke")

	done := make(chan error, 1)
	go func() { done <- stop() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("stop waited for the blocked reads")
	}
	require.NoError(t, rc.Ping(context.Background()).Err(), "the pool still works")
}
