package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

const rebalancingPath = "/coord/v1/streams/orders/groups/workers/rebalancing"

// Issue 20 point 4, end to end (real coordinator process, real redis-server,
// real HTTP): an operator pauses a group's rebalancing. A member that joins
// gets no shard a live member holds; the pause survives a kill -9 of the
// coordinator; a member that dies still has its shards reassigned; resuming
// balances the group.
func TestPausedRebalancing(t *testing.T) {
	e := start(t, map[string]string{"RSC_METRICS_SAMPLE_INTERVAL": "200ms"})
	e.c.CreateStream(t, "orders", 6)
	a, b := e.member("a"), e.member("b")
	beatAll(t, 4, a, b)
	require.Len(t, a.Shards(), 3)
	require.Len(t, b.Shards(), 3)
	before := map[string][]int{"a": a.Shards(), "b": b.Shards()}

	var g protocol.GroupResponse
	e.c.MustDo(t, "POST", rebalancingPath, map[string]any{"paused": true, "requestedBy": "ops", "reason": "e2e freeze"}, &g, 200)
	require.Equal(t, protocol.RebalancingPaused, g.Rebalancing)
	require.Equal(t, "ops", g.RebalancingPause.RequestedBy)
	require.Equal(t, "e2e freeze", g.RebalancingPause.Reason)

	// c joins and is confirmed: its target names shards a and b hold, and they keep them.
	c := e.member("c")
	for i := 0; i < 12; i++ {
		beatAll(t, 1, a, b, c)
		singleOwner(t, e, a, b, c)
		time.Sleep(50 * time.Millisecond) // pace the rounds like heartbeats (the lease is 1.5 s)
	}
	require.Empty(t, c.Shards(), "a member joining a paused group gets no shard a live member holds")
	require.Equal(t, before["a"], a.Shards())
	require.Equal(t, before["b"], b.Shards())
	require.NotEmpty(t, e.members(t)["c"].Pending, "c waits for its share")

	// The pause is durable: a kill -9 and a restart keep it.
	e.coord.Kill()
	e.coord.Restart()
	waitUntilOK(t, a, b, c)
	e.c.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/workers", nil, &g, 200)
	require.Equal(t, protocol.RebalancingPaused, g.Rebalancing, "the pause survives a restart")
	require.Equal(t, "e2e freeze", g.RebalancingPause.Reason)
	waitMetric(t, e, `rsc_group_rebalancing_paused_seconds{consumer_group="workers",stream_prefix="orders"}`, func(v float64) bool { return v > 0 })

	// b dies: its shards still move (to a and c), although rebalancing is paused.
	read := func() int { return len(a.Shards()) + len(c.Shards()) }
	deadline := time.Now().Add(10 * time.Second)
	for read() < 6 {
		require.True(t, time.Now().Before(deadline), "b's shards not reassigned while paused: a %v c %v", a.Shards(), c.Shards())
		beatAll(t, 1, a, c)
		singleOwner(t, e, a, c)
		time.Sleep(50 * time.Millisecond)
	}
	require.NotEmpty(t, c.Shards(), "c got some of the dead member's shards")
	require.Subset(t, a.Shards(), before["a"], "nothing was taken from the live member a")
	require.Equal(t, "EXPIRED", e.members(t)["b"].State)

	// Resume: the next heartbeats balance the group 3/3.
	var resumed protocol.GroupResponse
	e.c.MustDo(t, "POST", rebalancingPath, map[string]any{"paused": false, "requestedBy": "ops"}, &resumed, 200)
	require.Equal(t, protocol.RebalancingActive, resumed.Rebalancing)
	require.Nil(t, resumed.RebalancingPause)
	deadline = time.Now().Add(10 * time.Second)
	for len(a.Shards()) != 3 || len(c.Shards()) != 3 {
		require.True(t, time.Now().Before(deadline), "not balanced after resume: a %v c %v", a.Shards(), c.Shards())
		beatAll(t, 1, a, c)
		singleOwner(t, e, a, c)
		time.Sleep(50 * time.Millisecond)
	}
	waitMetric(t, e, `rsc_group_rebalancing_paused_seconds{consumer_group="workers",stream_prefix="orders"}`, func(v float64) bool { return v == 0 })
}

// waitMetric polls /metrics until series exists and satisfies ok (the
// per-group gauges are sampled every metrics.sample-interval).
func waitMetric(t *testing.T, e *env, series string, ok func(float64) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	last := "missing"
	for {
		v, found, err := e.c.Series(series)
		require.NoError(t, err)
		if found {
			if ok(v) {
				return
			}
			last = strconv.FormatFloat(v, 'g', -1, 64)
		}
		require.True(t, time.Now().Before(deadline), "%s is %s", series, last)
		time.Sleep(100 * time.Millisecond)
	}
}
