package membersdk

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

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
