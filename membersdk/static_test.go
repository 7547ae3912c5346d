package membersdk

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A static member (InstanceID set) sends its instanceId on every heartbeat and leaves with
// the temporary leave (-2) on Close; FullLeaveOnClose makes it leave for good (-1).
func TestStaticMemberClosesWithTemporaryLeave(t *testing.T) {
	t.Parallel()
	for _, full := range []bool{false, true} {
		rc := setupRedis(t, 1)
		f := newFakeCoord(t, 1)
		f.setTarget("m0", 0)
		var ev events
		cfg := testConfig(f, rc, "m0", &ev)
		cfg.InstanceID, cfg.FullLeaveOnClose = "orders-worker-0", full
		c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error { return nil })
		require.NoError(t, err)
		stop, _ := runConsumer(t, c)
		eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 3*time.Second, "started")
		require.NoError(t, stop())
		want := protocol.EpochTemporaryLeave
		if full {
			want = protocol.EpochLeave
		}
		reqs := f.requests("m0")
		last := reqs[len(reqs)-1]
		require.Equal(t, want, last.MemberEpoch, "FullLeaveOnClose=%v", full)
		require.Empty(t, last.OwnedShards)
		for _, r := range reqs {
			require.Equal(t, "orders-worker-0", r.InstanceID)
			require.NotEqual(t, -3-want, r.MemberEpoch, "never the other leave epoch (-1 + -2 = -3)")
		}
	}
}

// UNRELEASED_INSTANCE_ID: another live member holds the instanceId. The consumer reads
// nothing, keeps running, and retries joining at the heartbeat interval until it is let in.
func TestUnreleasedInstanceIDRetriesJoining(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var refused atomic.Int32
	f.setScript(func(req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool) {
		if refused.Load() < 3 {
			refused.Add(1)
			return protocol.HeartbeatResponse{Status: protocol.StatusUnreleasedInstanceID, HeartbeatIntervalMs: 100,
				Message: `instanceId "pod-0" is held by member "m9"`}, true
		}
		return protocol.HeartbeatResponse{}, false
	})
	var ev events
	cfg := testConfig(f, rc, "m0", &ev)
	cfg.InstanceID = "pod-0"
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, done := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 5*time.Second, "joined once the instance was free")
	require.Equal(t, int32(3), refused.Load())
	in := ev.find(EventMemberIDInUse)
	require.Len(t, in, 3)
	require.Equal(t, protocol.StatusUnreleasedInstanceID, in[0].Status)
	for _, r := range f.requests("m0") {
		if r.MemberEpoch != protocol.EpochJoin {
			break
		}
		require.Empty(t, r.OwnedShards)
	}
	select {
	case err := <-done:
		t.Fatalf("Run ended: %v", err)
	default:
	}
	require.NoError(t, stop())
}
