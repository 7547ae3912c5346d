package cluster

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// A 3-node cluster started together (every process launched at once) on a new Redis with
// the default store.trust-empty-store (false), a stream created and members heartbeating
// while the cluster is still forming (groups active while membership converges, so
// placements move), serving, then the hosting node and another stopped together with
// SIGTERM (the group handed over to the third while its members heartbeat) and the third
// after them: no node logs a WARN or an ERROR — nothing abnormal happened, so nothing may
// page anyone — and no stop waits a fixed time for peers that are leaving too.
func TestNormalRunLogsNoWarningOrError(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster: three coordinator processes, not in -short")
	}
	r := redistest.Start(t)
	env := map[string]string{"RSC_STORE_TRUST_EMPTY_STORE": "false"} // the default: a fresh store must be quiet by itself
	for k, v := range timing {
		env[k] = v
	}
	cl := harness.StartCluster(t, harness.ClusterOptions{Nodes: 3, RedisAddr: r.Addr(), Env: env, Together: true, NoWaitFormed: true})
	w := &world{t: t, redis: r, cl: cl, oracle: &Oracle{}, shards: 4}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("exchanges (last 40):\n%s", describeExchanges(w.oracle.Exchanges(), 40))
		}
	})
	harness.NewClient(cl.Nodes[0].URL()).CreateStream(t, prefix, w.shards)
	fms := []*harness.FailoverMember{w.member("m1", 0), w.member("m2", 1), w.member("m3", 2)}
	beatAll := func() int {
		n := 0
		for _, m := range fms {
			// A well-behaved member finishes draining a revoked shard promptly (nothing in
			// flight here): one kept for ever is rightly fenced at the rebalance timeout
			// (a WARN, and not normal operation).
			m.Release()
			w.beat(m)
			n += len(m.Shards())
		}
		return n
	}
	formedDuringBeats := false
	waitUntil(t, 60*time.Second, "every shard assigned and the cluster formed", func() bool {
		n := beatAll()
		if !formedDuringBeats && cl.WaitFormed(0) == nil {
			formedDuringBeats = true
			t.Logf("cluster formed while members heartbeat (%d shards assigned by then)", n)
		}
		return formedDuringBeats && n == w.shards
	})
	for i := 0; i < 5; i++ { // a few steady rounds
		beatAll()
		time.Sleep(heartbeat)
	}

	stopTogether := func(nodes ...*harness.Coordinator) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for _, n := range nodes {
			wg.Add(1)
			go func() { defer wg.Done(); n.Stop() }()
		}
		wg.Wait()
		return time.Since(start)
	}
	// The hosting node leaves with another one, so the group is handed over to the last node
	// while its members heartbeat: a graceful move must fence nobody.
	host, _, err := w.hostingNode()
	if err != nil {
		t.Fatal(err)
	}
	other, last := (host+1)%3, (host+2)%3
	took := stopTogether(cl.Nodes[host], cl.Nodes[other])
	t.Logf("n%d (hosting the group) and n%d stopped together in %s", host+1, other+1, took.Round(time.Millisecond))
	if took > 4*time.Second {
		t.Errorf("stopping 2 of 3 nodes together took %s: a node waited a fixed time for a peer that was leaving too", took)
	}
	waitUntil(t, 30*time.Second, fmt.Sprintf("n%d serves every shard", last+1), func() bool { return beatAll() == w.shards })
	for i := 0; i < 5; i++ { // a few steady rounds on the last node
		beatAll()
		time.Sleep(heartbeat)
	}
	took = stopTogether(cl.Nodes[last])
	t.Logf("n%d stopped in %s", last+1, took.Round(time.Millisecond))
	if took > 4*time.Second {
		t.Errorf("stopping the last node took %s", took)
	}

	for i, n := range cl.Nodes {
		for _, line := range strings.Split(n.Logs(), "\n") {
			if strings.Contains(line, "AUTHENTICATION IS OFF") {
				continue // the harness runs without auth.users on purpose
			}
			if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
				t.Errorf("n%d logged in normal operation: %s", i+1, line)
			}
		}
	}
	if overlaps := Overlaps(Intervals(w.oracle.Exchanges(), time.Now())); len(overlaps) > 0 {
		t.Errorf("single-owner violations: %v", overlaps)
	}
}
