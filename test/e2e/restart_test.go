package e2e

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// kill -9 the coordinator and start it again: members that keep
// heartbeating with their epochs are not fenced and keep their shards, and
// no epoch goes backwards.
func TestRestartAfterKillKeepsMembersAndEpochs(t *testing.T) {
	e := start(t, map[string]string{"RSC_COORDINATION_MEMBER_LEASE_TTL": "5s"})
	e.c.CreateStream(t, "orders", 6)
	a, b := e.member("a"), e.member("b")
	beatAll(t, 4, a, b)
	var g1 protocol.GroupResponse
	e.c.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/workers", nil, &g1, 200)
	shardsA, shardsB, epochA, epochB := a.Shards(), b.Shards(), a.Epoch, b.Epoch

	e.coord.Kill()
	e.coord.Restart()

	// The new process cannot know that the killed one is gone: it waits one confirmation
	// window (lease/6) before it answers, and members are told RETRY meanwhile (they keep
	// their shards). A graceful stop (SIGTERM) releases the groups and needs no wait.
	waitUntilOK(t, a, b)
	for i := 0; i < 3; i++ {
		ra := a.Beat(t)
		rb := b.Beat(t)
		require.Equal(t, protocol.StatusOK, ra.Status, ra.Message)
		require.Equal(t, protocol.StatusOK, rb.Status, rb.Message)
	}
	require.Equal(t, shardsA, a.Shards())
	require.Equal(t, shardsB, b.Shards())
	require.Equal(t, epochA, a.Epoch)
	require.Equal(t, epochB, b.Epoch)
	var g2 protocol.GroupResponse
	e.c.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/workers", nil, &g2, 200)
	require.GreaterOrEqual(t, g2.GroupEpoch, g1.GroupEpoch)
	require.GreaterOrEqual(t, g2.AssignmentEpoch, g1.AssignmentEpoch)
	require.GreaterOrEqual(t, g2.MetadataVersion, g1.MetadataVersion)

	// A new member after the restart gets a higher epoch than anything before.
	c := e.member("c")
	c.Beat(t)
	require.Greater(t, c.Epoch, epochA)
}

// SIGTERM releases every group activation: the restarted process answers at once, with the
// same shards and epochs.
func TestGracefulRestartAnswersAtOnce(t *testing.T) {
	e := start(t, map[string]string{"RSC_COORDINATION_MEMBER_LEASE_TTL": "5s"})
	e.c.CreateStream(t, "orders", 4)
	a, b := e.member("a"), e.member("b")
	beatAll(t, 4, a, b)
	shardsA, epochA := a.Shards(), a.Epoch

	e.coord.RestartGracefully()
	for _, m := range []*harness.Member{a, b} {
		r := m.Beat(t)
		require.Equal(t, protocol.StatusOK, r.Status, r.Message)
	}
	require.Equal(t, shardsA, a.Shards())
	require.Equal(t, epochA, a.Epoch)
	require.Contains(t, e.coord.Logs(), "group activation released")
}

// A client connection that never sends a request (Go's http.Transport keeps
// such spare connections in its idle pool) does not hold a graceful stop up:
// it held it until the 30 s read timeout, past the supervisor's patience.
func TestGracefulStopDoesNotWaitForAnUnusedConnection(t *testing.T) {
	e := start(t, nil)
	e.c.CreateStream(t, "orders", 2)
	a := e.member("a")
	a.Beat(t)
	unused, err := net.Dial("tcp", strings.TrimPrefix(e.coord.URL(), "http://"))
	require.NoError(t, err)
	defer unused.Close()

	began := time.Now()
	e.coord.Stop() // SIGQUIT, then SIGKILL, after 15 s without an exit
	took := time.Since(began)
	t.Logf("exited %s after SIGTERM", took.Round(time.Millisecond))
	require.Less(t, took, 10*time.Second, "the coordinator took %s to exit after SIGTERM", took)
	require.Contains(t, e.coord.Logs(), "msg=\"shut down\"")
	require.NotContains(t, e.coord.Logs(), "in-flight requests did not finish in time")
}

// A steady-state heartbeat writes nothing to Redis.
func TestSteadyStateHeartbeatsWriteNothing(t *testing.T) {
	e := start(t, map[string]string{"RSC_COORDINATION_MEMBER_LEASE_TTL": "30s"})
	e.c.CreateStream(t, "orders", 4)
	a, b := e.member("a"), e.member("b")
	beatAll(t, 4, a, b)

	before := writeCommands(t, e)
	for i := 0; i < 25; i++ {
		require.Equal(t, protocol.StatusOK, a.Beat(t).Status)
		require.Equal(t, protocol.StatusOK, b.Beat(t).Status)
	}
	after := writeCommands(t, e)
	require.Equal(t, before, after, "steady-state heartbeats must not write to Redis")
	require.NotZero(t, before, "the group's earlier changes were written (sanity check of the counter)")
}

// writeCommands sums the calls of every command that can write, from INFO commandstats.
func writeCommands(t *testing.T, e *env) int64 {
	t.Helper()
	info, err := e.redis.Client().Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	var total int64
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		cmd := strings.TrimPrefix(name, "cmdstat_")
		switch {
		case cmd == "evalsha", cmd == "eval", cmd == "fcall", strings.HasPrefix(cmd, "hset"), strings.HasPrefix(cmd, "hdel"),
			cmd == "set", cmd == "del", cmd == "sadd", cmd == "srem", cmd == "xadd", cmd == "incr", cmd == "hincrby", cmd == "multi":
			calls := strings.TrimPrefix(strings.Split(rest, ",")[0], "calls=")
			n, err := strconv.ParseInt(calls, 10, 64)
			require.NoError(t, err)
			total += n
		}
	}
	return total
}

// waitUntilOK heartbeats until every member is answered OK; anything else than RETRY fails.
func waitUntilOK(t *testing.T, ms ...*harness.Member) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, m := range ms {
		for {
			r := m.Beat(t)
			if r.Status == protocol.StatusOK {
				break
			}
			require.Equal(t, protocol.StatusRetry, r.Status, r.Message)
			require.True(t, time.Now().Before(deadline), "no OK within 10s after the restart")
			time.Sleep(100 * time.Millisecond)
		}
	}
}
