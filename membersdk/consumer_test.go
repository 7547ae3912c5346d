package membersdk

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

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

func TestConsumerAppliesAndRevokesAssignment(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 2)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0, 1)
	var ev events
	var h handled
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { h.add(m); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)

	id0 := xadd(t, rc, 0, "k", "a")
	id1 := xadd(t, rc, 1, "k", "b")
	eventually(t, func() bool { return len(h.ids(0)) == 1 && len(h.ids(1)) == 1 }, 5*time.Second, "both shards consumed")
	require.Equal(t, []string{id0}, h.ids(0))
	require.Equal(t, []string{id1}, h.ids(1))
	eventually(t, func() bool { return pendingCount(t, rc, 0) == 0 && pendingCount(t, rc, 1) == 0 }, 2*time.Second, "acked")
	require.Equal(t, int64(1), h.calls[0].Epoch)

	// The progress of both shards is reported.
	eventually(t, func() bool {
		req, ok := f.lastRequest("m0")
		if !ok || len(req.ShardProgress) != 2 {
			return false
		}
		p := req.ShardProgress[0]
		return p.StreamKey == "orders:0" && p.LastDeliveredID == id0 && p.LastAckedID == id0 && p.PendingCount == 0 && p.UpdatedAt != ""
	}, 2*time.Second, "shard progress reported")
	req, _ := f.lastRequest("m0")
	require.Equal(t, protocol.Capacity{RuntimeMaxConcurrency: DefaultConcurrency, AvailableConcurrency: DefaultConcurrency}, req.RuntimeConsumerCapacity)
	require.Equal(t, "test", req.MemberName)

	// Revoke shard 0.
	f.setTarget("m0", 1)
	eventually(t, func() bool { return ev.has(EventShardReleased, "m0", 0) }, 3*time.Second, "shard 0 released")
	eventually(t, func() bool {
		req, _ := f.lastRequest("m0")
		return slices.Equal(ownedIn(req), []int{1}) && len(req.RevokingShards) == 0
	}, 2*time.Second, "release reported")
	xadd(t, rc, 0, "k", "after-revoke")
	id1b := xadd(t, rc, 1, "k", "c")
	eventually(t, func() bool { return len(h.ids(1)) == 2 }, 3*time.Second, "shard 1 still consumed")
	require.Equal(t, id1b, h.ids(1)[1])
	// Asserts that nothing happens: no event marks "not read", so give a
	// wrongly running reader 200ms to show up.
	time.Sleep(200 * time.Millisecond)
	require.Len(t, h.ids(0), 1, "revoked shard must not be read")
	require.False(t, ev.has(EventShardReleased, "m0", 1))

	require.NoError(t, stop())
}

func TestPendingShardsAreNeverStarted(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 2)
	f := newFakeCoord(t, 1)
	f.setScript(func(req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool) {
		return protocol.HeartbeatResponse{Status: protocol.StatusOK, MemberEpoch: 3, MetadataVersion: 2,
			Assignment: protocol.Assignment{AssignedShards: protocol.ShardIDs([]int{0}), PendingShards: protocol.ShardIDs([]int{1})}}, true
	})
	var ev events
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 3*time.Second, "shard 0 started")
	eventually(t, func() bool {
		req, _ := f.lastRequest("m0")
		return req.MemberEpoch == 3 && req.MetadataVersion == 2
	}, 2*time.Second, "epoch and metadata version adopted")
	require.False(t, ev.has(EventShardStarted, "m0", 1))
	req, _ := f.lastRequest("m0")
	require.Equal(t, []int{0}, ownedIn(req))
	require.NoError(t, stop())
}

func TestTakeoverClaimsPreviousOwnersPendingEntries(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	var old []string
	for i := range 3 {
		old = append(old, xadd(t, rc, 0, "n", i))
	}
	// A previous owner read them and died without acking.
	res, err := rc.XReadGroup(ctx, &redis.XReadGroupArgs{Group: testGroup, Consumer: "dead-member", Streams: []string{"orders:0", ">"}, Count: 10}).Result()
	require.NoError(t, err)
	require.Len(t, res[0].Messages, 3)
	require.Equal(t, int64(3), pendingCount(t, rc, 0))

	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var h handled
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { h.add(m); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return h.count() == 3 }, 5*time.Second, "claimed entries handled")
	require.Equal(t, old, h.ids(0), "claimed entries are handled first, in order")
	for _, m := range h.calls {
		require.Equal(t, int64(2), m.DeliveryCount)
	}
	newID := xadd(t, rc, 0, "n", "new")
	eventually(t, func() bool { return h.count() == 4 }, 3*time.Second, "new entry handled")
	require.Equal(t, newID, h.calls[3].ID)
	require.Equal(t, int64(1), h.calls[3].DeliveryCount)
	eventually(t, func() bool { return pendingCount(t, rc, 0) == 0 }, 2*time.Second, "all acked")
	require.NoError(t, stop())
}

func TestFencedStopsAtOnceWithoutAckAndRejoins(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	started := make(chan struct{}, 10)
	release := make(chan struct{})
	var calls atomic.Int32
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error {
		if calls.Add(1) == 1 {
			started <- struct{}{}
			<-release // ignores ctx on purpose: its result must be thrown away
		}
		return nil
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	id := xadd(t, rc, 0, "k", "v")
	<-started

	var fenced atomic.Bool
	f.setScript(func(req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool) {
		if req.MemberEpoch > 0 && fenced.CompareAndSwap(false, true) {
			return protocol.HeartbeatResponse{Status: protocol.StatusFencedMemberEpoch}, true
		}
		return protocol.HeartbeatResponse{}, false
	})
	f.setTarget("m0") // after the rejoin: nothing assigned for now
	eventually(t, func() bool { return ev.has(EventFenced, "m0", -1) }, 3*time.Second, "fenced")
	eventually(t, func() bool { return ev.has(EventShardReleased, "m0", 0) }, 3*time.Second, "worker stopped")
	close(release)
	eventually(t, func() bool { return ev.has(EventAckRefused, "m0", 0) }, 3*time.Second, "ack refused")
	require.Equal(t, int64(1), pendingCount(t, rc, 0), "no XACK after fencing")

	// It rejoined with epoch 0 and nothing owned.
	eventually(t, func() bool {
		for _, r := range f.requests("m0") {
			if r.MemberEpoch == 0 && len(r.OwnedShards) == 0 && fenced.Load() {
				return true
			}
		}
		return false
	}, 3*time.Second, "rejoin")
	reqs := f.requests("m0")
	require.Equal(t, int64(0), reqs[0].MemberEpoch)
	rejoins := 0
	for _, r := range reqs {
		if r.MemberEpoch == 0 {
			rejoins++
			require.Empty(t, r.OwnedShards)
		}
	}
	require.Equal(t, 2, rejoins)

	// Given the shard again, it claims its own leftover entry and acks it.
	f.setTarget("m0", 0)
	eventually(t, func() bool { return pendingCount(t, rc, 0) == 0 }, 5*time.Second, "entry redelivered and acked")
	require.Equal(t, int32(2), calls.Load())
	_ = id
	require.NoError(t, stop())
}

func TestRevokeDrainsInFlightThenReleases(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	started := make(chan struct{}, 1)
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error {
		started <- struct{}{}
		time.Sleep(400 * time.Millisecond) // a slow handler (simulated work), not a wait
		return nil
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	xadd(t, rc, 0, "k", "v")
	<-started
	f.setTarget("m0")
	eventually(t, func() bool {
		for _, r := range f.requests("m0") {
			if len(r.RevokingShards) == 1 && r.RevokingShards[0].State == protocol.RevokeStateDraining &&
				r.RevokingShards[0].InFlight == 1 && slices.Equal(ownedIn(r), []int{0}) {
				return true
			}
		}
		return false
	}, 3*time.Second, "draining reported while the handler runs")
	eventually(t, func() bool { return ev.has(EventShardReleased, "m0", 0) }, 3*time.Second, "released")
	require.Equal(t, int64(0), pendingCount(t, rc, 0), "drained entry acked before release")
	rel := ev.find(EventShardReleased)
	require.NoError(t, rel[0].Err)
	eventually(t, func() bool {
		req, _ := f.lastRequest("m0")
		return len(req.OwnedShards) == 0 && len(req.RevokingShards) == 0
	}, 2*time.Second, "release reported")
	require.NoError(t, stop())
}

func TestRevokeTimeoutAbandonsWithoutAck(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.rebalance = 300
	f.setTarget("m0", 0)
	var ev events
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error {
		started <- struct{}{}
		<-release
		return nil
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	xadd(t, rc, 0, "k", "v")
	<-started
	revokedAt := time.Now()
	f.setTarget("m0")
	eventually(t, func() bool { return ev.has(EventShardReleased, "m0", 0) }, 3*time.Second, "released after the rebalance timeout")
	require.GreaterOrEqual(t, time.Since(revokedAt), 250*time.Millisecond)
	require.Error(t, ev.find(EventShardReleased)[0].Err)
	close(release)
	eventually(t, func() bool { return ev.has(EventAckRefused, "m0", 0) }, 2*time.Second, "late ack refused")
	require.Equal(t, int64(1), pendingCount(t, rc, 0), "abandoned entry stays pending for the next owner")
	require.NoError(t, stop())
}

func TestSelfFenceWhenCoordinatorUnreachableThenResume(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.lease = 1000
	f.setTarget("m0", 0)
	var ev events
	var h handled
	block := make(chan struct{})
	inHandler := make(chan struct{}, 1)
	cfg := testConfig(f, rc, "m0", &ev)
	cfg.SelfFenceMargin = 300 * time.Millisecond
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error {
		h.add(m)
		if m.Values["k"] == "slow" {
			inHandler <- struct{}{}
			<-block
		}
		return nil
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 3*time.Second, "started")
	xadd(t, rc, 0, "k", "slow")
	<-inHandler

	downAt := time.Now()
	f.setDown(0, true)
	eventually(t, func() bool { return ev.has(EventSelfFenced, "m0", -1) }, 3*time.Second, "self-fenced")
	elapsed := time.Since(downAt)
	require.Less(t, elapsed, 1000*time.Millisecond, "self-fence must come before the lease ends")
	require.GreaterOrEqual(t, elapsed, 500*time.Millisecond)
	close(block)
	eventually(t, func() bool { return ev.has(EventAckRefused, "m0", 0) }, 2*time.Second, "ack refused while self-fenced")
	require.Equal(t, int64(1), pendingCount(t, rc, 0))
	eventually(t, func() bool { return ev.has(EventShardReleased, "m0", 0) }, 2*time.Second, "reader stopped")
	xadd(t, rc, 0, "k", "while-fenced")
	// Asserts that nothing happens: no event marks "not read", so give a
	// wrongly running reader 300ms to show up.
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, 1, h.count(), "nothing read while self-fenced")

	f.setDown(0, false)
	eventually(t, func() bool { return ev.has(EventResumed, "m0", -1) }, 3*time.Second, "resumed")
	eventually(t, func() bool { return pendingCount(t, rc, 0) == 0 && h.count() == 3 }, 5*time.Second, "both entries handled after resume")
	for _, r := range f.requests("m0")[1:] {
		require.Equal(t, int64(1), r.MemberEpoch, "same epoch throughout: no rejoin")
	}
	require.NoError(t, stop())
}

func TestFailoverAcrossURLsIsSticky(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 2)
	f.setDown(0, true)
	f.setTarget("m0", 0)
	var ev events
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 3*time.Second, "joined through the second URL")
	require.Equal(t, f.srvs[1].URL, ev.find(EventFailover)[0].URL)
	f.setDown(0, false)
	first := f.hitCount(0)
	n := len(f.requests("m0"))
	eventually(t, func() bool { return len(f.requests("m0")) >= n+3 }, 3*time.Second, "heartbeats go on")
	require.Equal(t, first, f.hitCount(0), "sticky on the URL that works")

	f.setDown(1, true)
	n = len(f.requests("m0"))
	eventually(t, func() bool { return len(f.requests("m0")) >= n+3 }, 3*time.Second, "failed back to the first URL")
	require.Len(t, ev.find(EventFailover), 2)
	require.False(t, ev.has(EventSelfFenced, "m0", -1))
	require.False(t, ev.has(EventShardReleased, "m0", 0))
	require.NoError(t, stop())
}

func TestGracefulLeaveDrainsThenLeaves(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 2)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0, 1)
	var ev events
	started := make(chan struct{}, 1)
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error {
		started <- struct{}{}
		time.Sleep(300 * time.Millisecond) // a slow handler (simulated work), not a wait
		return nil
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 1) }, 3*time.Second, "started")
	xadd(t, rc, 0, "k", "v")
	<-started
	require.NoError(t, stop())
	require.Equal(t, int64(0), pendingCount(t, rc, 0), "in-flight work finished before leaving")

	var leaves []protocol.HeartbeatRequest
	for _, r := range f.requests("m0") {
		if r.MemberEpoch == protocol.EpochLeave {
			leaves = append(leaves, r)
		} else {
			require.Empty(t, leaves, "nothing but leave heartbeats after the first one")
		}
	}
	require.GreaterOrEqual(t, len(leaves), 2)
	require.Equal(t, []int{0, 1}, ownedIn(leaves[0]), "first leave lists what is still owned")
	require.NotEmpty(t, leaves[0].RevokingShards)
	last := leaves[len(leaves)-1]
	require.Empty(t, last.OwnedShards)
	require.Empty(t, last.RevokingShards)
	require.True(t, ev.has(EventLeft, "m0", -1))
}

func TestDeadLetterAfterMaxDeliveries(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var h handled
	cfg := testConfig(f, rc, "m0", &ev)
	cfg.MaxDeliveries = 3
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error {
		h.add(m)
		return errors.New("boom")
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	id := xadd(t, rc, 0, "k", "v")
	eventually(t, func() bool { return ev.has(EventDeadLettered, "m0", 0) }, 5*time.Second, "dead-lettered")
	require.Equal(t, 3, h.count())
	for i, m := range h.calls {
		require.Equal(t, int64(i+1), m.DeliveryCount)
	}
	require.Equal(t, int64(0), pendingCount(t, rc, 0))
	dlq, err := rc.XRange(context.Background(), "{orders:0}:dlq", "-", "+").Result()
	require.NoError(t, err)
	require.Len(t, dlq, 1)
	v := dlq[0].Values
	require.Equal(t, "v", v["k"])
	require.Equal(t, "orders:0", v[DLQFieldOriginStream])
	require.Equal(t, id, v[DLQFieldOriginID])
	require.Equal(t, "boom", v[DLQFieldError])
	require.Equal(t, testGroup, v[DLQFieldConsumerGroup])
	require.Equal(t, "3", v[DLQFieldDeliveries])
	require.NoError(t, stop())
}

func TestRunStopsOnFatalAnswers(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	for _, tc := range []struct {
		name   string
		status protocol.Status
		http   int
	}{
		{"unsupported protocol", protocol.StatusUnsupportedProtocol, 0},
		{"invalid request", protocol.StatusInvalidRequest, 0},
		{"unauthorized", "", 401},
		{"forbidden", "", 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeCoord(t, 1)
			f.httpStatus = tc.http
			if tc.status != "" {
				f.setScript(func(req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool) {
					return protocol.HeartbeatResponse{Status: tc.status, Message: "no"}, true
				})
			}
			var ev events
			c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { return nil })
			require.NoError(t, err)
			_, done := runConsumer(t, c)
			select {
			case err := <-done:
				require.Error(t, err)
				if tc.http != 0 {
					var ae *AuthError
					require.ErrorAs(t, err, &ae)
					require.Equal(t, tc.http, ae.StatusCode)
				} else {
					require.Contains(t, err.Error(), string(tc.status))
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not return")
			}
		})
	}
}

func TestUnknownMemberRejoins(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 3*time.Second, "started")
	// The coordinator forgets the member (e.g. its lease expired).
	f.mu.Lock()
	delete(f.epochs, "m0")
	delete(f.owned, "m0")
	delete(f.given, "m0")
	f.mu.Unlock()
	eventually(t, func() bool { return ev.has(EventFenced, "m0", -1) }, 3*time.Second, "told unknown")
	require.Equal(t, protocol.StatusUnknownMemberID, ev.find(EventFenced)[0].Status)
	eventually(t, func() bool { return len(ev.find(EventShardStarted)) == 2 }, 3*time.Second, "rejoined and restarted")
	require.Len(t, ev.find(EventJoined), 2)
	require.NoError(t, stop())
}

func TestRetryDoesNotRenewTheLease(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.lease = 1000
	f.setTarget("m0", 0)
	var ev events
	cfg := testConfig(f, rc, "m0", &ev)
	cfg.SelfFenceMargin = 300 * time.Millisecond
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 3*time.Second, "started")
	f.setScript(func(req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool) {
		return protocol.HeartbeatResponse{Status: protocol.StatusRetry}, true
	})
	eventually(t, func() bool { return ev.has(EventSelfFenced, "m0", -1) }, 3*time.Second, "self-fenced despite RETRY answers")
	eventually(t, func() bool {
		r, _ := f.lastRequest("m0")
		return len(r.OwnedShards) == 0 && r.MemberEpoch == 1
	}, 3*time.Second, "reports nothing owned while self-fenced, same epoch")
	f.setScript(nil)
	eventually(t, func() bool { return len(ev.find(EventShardStarted)) == 2 }, 3*time.Second, "resumed")
	require.NoError(t, stop())
}

// A previous owner blocked in XREADGROUP when it lost the shard (paused
// process) can have entries delivered to it after the new owner took over
// and claimed what was pending then. The owner must find and claim them.
func TestOwnerClaimsEntriesDeliveredToAStaleOwnerAfterTakeover(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var h handled
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { h.add(m); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 5*time.Second, "m0 reads shard 0")

	// The stale owner's blocked read is served now, after the takeover. In one
	// MULTI the entry is added and delivered to the stale owner before m0's
	// own blocked read can be served.
	var id string
	_, err = rc.TxPipelined(ctx, func(p redis.Pipeliner) error {
		add := p.XAdd(ctx, &redis.XAddArgs{Stream: "orders:0", Values: []any{"n", "late"}})
		p.XReadGroup(ctx, &redis.XReadGroupArgs{Group: testGroup, Consumer: "stale-owner", Streams: []string{"orders:0", ">"}, Count: 10, Block: -1})
		_ = add
		return nil
	})
	require.NoError(t, err)
	res, err := rc.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "orders:0", Group: testGroup, Start: "-", End: "+", Count: 10, Consumer: "stale-owner"}).Result()
	require.NoError(t, err)
	require.Len(t, res, 1, "the entry is pending under the stale owner")
	id = res[0].ID
	eventually(t, func() bool {
		for _, got := range h.ids(0) {
			if got == id {
				return true
			}
		}
		return false
	}, 6*time.Second, "the entry delivered to the stale owner is claimed and handled by the owner")
	eventually(t, func() bool { return pendingCount(t, rc, 0) == 0 }, 6*time.Second, "nothing left pending")
	require.NoError(t, stop())
}
