package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

func activations(c *harness.Coordinator) int {
	return strings.Count(c.Logs(), `msg="group activated"`)
}

func healthOf(t *testing.T, c *harness.Client) protocol.HealthResponse {
	t.Helper()
	var h protocol.HealthResponse
	c.MustDo(t, "GET", "/coord/v1/monitoring/health", nil, &h, 200)
	return h
}

// Two coordinators left at cluster.provider single on one Redis and key
// prefix, members spread over both (a load balancer): the later node refuses
// to serve, so the group's activation stops moving between them and only the
// earlier node serves; when the earlier one stops, the later one serves.
func TestTwoSingleNodesOnOneStoreDoNotPingPong(t *testing.T) {
	r := redistest.Start(t)
	env := func(id string) map[string]string {
		s := map[string]string{"RSC_CLUSTER_NODE_ID": id}
		for k, v := range fastTiming {
			s[k] = v
		}
		return s
	}
	c1 := harness.StartCoordinator(t, harness.Options{RedisAddr: r.Addr(), Env: env("c1")})
	c2 := harness.StartCoordinator(t, harness.Options{RedisAddr: r.Addr(), Env: env("c2")})
	cl := []*harness.Client{harness.NewClient(c1.URL()), harness.NewClient(c2.URL())}
	cl[0].CreateStream(t, "orders", 4)

	// Members round-robin over both nodes from the start, as behind a load balancer.
	ms := []*harness.Member{harness.NewMember(cl[0], "orders", "workers", "m1"), harness.NewMember(cl[0], "orders", "workers", "m2")}
	turn := 0
	beat := func() (ok, retry [2]int) {
		for _, m := range ms {
			i := turn % 2
			turn++
			m.C = cl[i]
			resp := m.Beat(t)
			switch resp.Status {
			case protocol.StatusRetry:
				retry[i]++
			case protocol.StatusFencedMemberEpoch, protocol.StatusUnknownMemberID:
			default:
				ok[i]++
			}
		}
		return ok, retry
	}
	require.Eventually(t, func() bool {
		beat()
		h := healthOf(t, cl[1])
		return h.Status == protocol.HealthDown && h.NodeConflict != nil && h.NodeConflict.Refusing
	}, 20*time.Second, 125*time.Millisecond, "the later node never refused")
	during := activations(c1) + activations(c2)

	h2 := healthOf(t, cl[1])
	require.Equal(t, "c1", h2.NodeConflict.Peers[0].NodeID)
	require.Equal(t, "single", h2.NodeConflict.Peers[0].Provider)
	code, body, err := cl[1].Do("GET", "/coord/v1/monitoring/ready", nil, nil)
	require.NoError(t, err)
	require.Equal(t, 503, code, "a load balancer takes the refusing node out")
	require.Contains(t, string(body), "store.key-prefix")
	require.Contains(t, c2.Logs(), "REFUSES TO SERVE")
	require.Contains(t, c2.Logs(), "node c1 (owner c1/")
	// The earlier node counts the conflict up to one round after the later one.
	require.Eventually(t, func() bool { return healthOf(t, cl[0]).NodeConflict != nil }, 10*time.Second, 50*time.Millisecond)
	h1 := healthOf(t, cl[0])
	require.Equal(t, protocol.HealthUp, h1.Status)
	require.False(t, h1.NodeConflict.Refusing)

	// Wait until c2's release (in the round that refused) and c1's re-activation happened,
	// shown by c1 answering its member OK, then count: the activation moves no more.
	require.Eventually(t, func() bool {
		o, r := beat()
		return o[0] > 0 && r[0] == 0
	}, 10*time.Second, 125*time.Millisecond, "the earlier node never served its member after the refusal")
	before1, before2 := activations(c1), activations(c2)
	var ok, retry [2]int
	for i := 0; i < 24; i++ { // 3 s: 12 heartbeat intervals
		o, r := beat()
		for j := range o {
			ok[j] += o[j]
			retry[j] += r[j]
		}
		time.Sleep(125 * time.Millisecond)
	}
	t.Logf("activations until the refusal: %d; in 3 s after it: c1 %d, c2 %d; heartbeats OK c1 %d c2 %d, RETRY c1 %d c2 %d",
		during, activations(c1)-before1, activations(c2)-before2, ok[0], ok[1], retry[0], retry[1])
	require.Equal(t, before1, activations(c1), "the group's activation moved")
	require.Equal(t, before2, activations(c2), "the refusing node activated a group")
	require.Zero(t, ok[1], "the refusing node served a heartbeat")
	require.Zero(t, retry[0])
	require.NotZero(t, ok[0])
	own := map[int]string{}
	for _, m := range ms {
		for _, s := range m.Shards() {
			require.Empty(t, own[s], "shard %d owned twice", s)
			own[s] = m.ID
		}
	}
	require.Len(t, own, 4, "every shard owned")

	// The earlier node stops: the later one serves.
	c1.Stop()
	require.Eventually(t, func() bool { return healthOf(t, cl[1]).Status == protocol.HealthUp }, 20*time.Second, 100*time.Millisecond)
	require.Contains(t, c2.Logs(), "serving again")
	ms[0].C = cl[1]
	require.Eventually(t, func() bool { return ms[0].Beat(t).Status == protocol.StatusOK }, 10*time.Second, 100*time.Millisecond)
}
