package chaos

import (
	"fmt"
	"sort"
	"testing"
	"time"
)

func memberIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("m%d", i)
	}
	return out
}

func keys(set map[int]bool) []int {
	out := make([]int, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func waitFor(timeout time.Duration, cond func() bool) bool {
	return waitForEvery(timeout, 100*time.Millisecond, cond)
}

func waitForEvery(timeout, every time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(every)
	}
}

func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !waitFor(timeout, cond) {
		t.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}

// waitFormed waits until every coordinator process runs and the nodes form
// one cluster again (harness.Cluster.WaitFormed skips exited nodes; an
// exited node here is one the supervisor has not restarted yet, or could
// not).
func waitFormed(c *cluster, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var exited []string
		for i, co := range c.coords {
			if co.Exited() {
				exited = append(exited, fmt.Sprintf("coordinator-%d", i))
			}
		}
		var err error
		if len(exited) > 0 {
			err = fmt.Errorf("not running: %v", exited)
		} else {
			err = c.hc.WaitFormed(time.Second)
		}
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}
