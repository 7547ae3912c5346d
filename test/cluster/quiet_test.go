package cluster

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redisstream/coordinator/test/harness"
)

// A 3-node cluster started together, serving a few members, and stopped with SIGTERM on
// every node at once logs no WARN and no ERROR on any node: nothing abnormal happened, so
// nothing may page anyone. The nodes also stop without waiting for each other (no fixed
// hand-over wait when the peers are leaving too).
func TestNormalRunLogsNoWarningOrError(t *testing.T) {
	w := startWorld(t, 4)
	fms := []*harness.FailoverMember{w.member("m1", 0), w.member("m2", 1), w.member("m3", 2)}
	waitUntil(t, 15*time.Second, "every shard assigned", func() bool {
		n := 0
		for _, m := range fms {
			w.beat(m)
			n += len(m.Shards())
		}
		return n == 4
	})
	for i := 0; i < 5; i++ { // a few steady rounds
		for _, m := range fms {
			w.beat(m)
		}
		time.Sleep(heartbeat)
	}

	start := time.Now()
	var wg sync.WaitGroup
	for _, n := range w.cl.Nodes {
		wg.Add(1)
		go func() { defer wg.Done(); n.Stop() }()
	}
	wg.Wait()
	took := time.Since(start)
	t.Logf("3 nodes stopped together in %s", took.Round(time.Millisecond))
	for i, n := range w.cl.Nodes {
		for _, line := range strings.Split(n.Logs(), "\n") {
			if strings.Contains(line, "AUTHENTICATION IS OFF") {
				continue // the harness runs without auth.users on purpose
			}
			if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
				t.Errorf("n%d logged in normal operation: %s", i+1, line)
			}
		}
	}
	if took > 4*time.Second {
		t.Errorf("stopping 3 nodes together took %s: a node waited for peers that were leaving too", took)
	}
}
