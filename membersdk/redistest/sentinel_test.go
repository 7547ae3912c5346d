package redistest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A failover client follows both kinds of failover: a SENTINEL FAILOVER and
// a primary killed; what it wrote before each is on the new primary.
func TestSentinelsFailOver(t *testing.T) {
	s := StartSentinels(t)
	c := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: SentinelMaster, SentinelAddrs: s.SentinelAddrs()})
	defer c.Close()
	ctx := context.Background()
	write := func(v string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			err := c.Set(ctx, "k", v, 0).Err()
			if err == nil {
				var n int64
				if n, err = c.Wait(ctx, 1, 2*time.Second).Result(); err == nil && n >= 1 {
					return
				} else if err == nil {
					err = fmt.Errorf("WAIT: %d replicas acknowledged", n)
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("write %s: %v", v, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	write("a")
	from, to, took := s.Failover()
	if from == to || to == "" {
		t.Fatalf("SENTINEL FAILOVER: primary %q → %q", from, to)
	}
	t.Logf("SENTINEL FAILOVER %s → %s in %s", from, to, took)
	if got, err := s.Node(to).Client().Get(ctx, "k").Result(); err != nil || got != "a" {
		t.Fatalf("new primary %s has k = %q (%v), want a", to, got, err)
	}
	write("b")
	from, to, took = s.KillPrimary()
	t.Logf("primary %s killed, %s promoted in %s", from, to, took)
	if got, err := c.Get(ctx, "k").Result(); err != nil || got != "b" {
		t.Fatalf("after the kill k = %q (%v), want b", got, err)
	}
}
