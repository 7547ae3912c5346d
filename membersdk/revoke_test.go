package membersdk

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

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
