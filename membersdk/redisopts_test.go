package membersdk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/redistest"
)

// Options that cannot make a client are refused naming the field; nothing
// is dialled.
func TestRedisOptionsRefusesWhatCannotWork(t *testing.T) {
	for _, c := range []struct {
		o    RedisOptions
		want string
	}{
		{RedisOptions{}, "RedisOptions.Addrs is empty"},
		{RedisOptions{SentinelAddrs: []string{"s:26379"}}, "RedisOptions.SentinelAddrs needs MasterName"},
		{RedisOptions{MasterName: "m"}, "RedisOptions.MasterName needs SentinelAddrs"},
		{RedisOptions{MasterName: "m", SentinelAddrs: []string{"s:26379"}, Addrs: []string{"r:6379"}}, "RedisOptions.Addrs is set together with Sentinel"},
		{RedisOptions{MasterName: "m", SentinelAddrs: []string{"s:26379"}, Cluster: true}, "RedisOptions.Cluster is set together with Sentinel"},
		{RedisOptions{Addrs: []string{"r:6379"}, SentinelPassword: "pw"}, "SentinelUsername/SentinelPassword are set without MasterName"},
		{RedisOptions{Addrs: []string{"a:1", "b:2"}, DB: 3}, "RedisOptions.DB = 3 with Redis Cluster"},
		{RedisOptions{Addrs: []string{"r:6379"}, TLS: &RedisTLS{MinVersion: "1.0"}}, `RedisTLS.MinVersion "1.0"`},
	} {
		c2, err := c.o.Client()
		if c2 != nil {
			_ = c2.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an error containing %q", c.o, err, c.want)
		}
	}
	_, err := RedisOptions{}.Client()
	if !errors.Is(err, ErrRedisOptions) {
		t.Errorf("%v is not ErrRedisOptions", err)
	}
}

// The client of a Sentinel setting writes to whichever node is the primary:
// before and after a SENTINEL FAILOVER, without being told.
func TestRedisOptionsFollowsASentinelFailover(t *testing.T) {
	s := redistest.StartSentinels(t)
	c, err := RedisOptions{MasterName: redistest.SentinelMaster, SentinelAddrs: s.SentinelAddrs()}.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, ok := c.(*redis.Client); !ok {
		t.Fatalf("a Sentinel setting makes %T, want the failover client (*redis.Client)", c)
	}
	if err := c.Set(ctx, "k", "before", 0).Err(); err != nil {
		t.Fatal(err)
	}
	from, to, took := s.Failover()
	t.Logf("SENTINEL FAILOVER %s → %s in %s", from, to, took)
	// Until the client hears +switch-master it may still write to the old
	// primary, which takes writes until the Sentinels demote it (and then
	// discards them: what min-replicas-to-write 1 prevents).
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		v := fmt.Sprint("after-", i)
		err = c.Set(ctx, "k", v, 0).Err()
		if err == nil {
			if got, _ := s.Node(to).Client().Get(ctx, "k").Result(); got == v {
				t.Logf("the client writes to the new primary %s after %d attempts", to, i+1)
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no write of the client reached the new primary %s within 10s (last: %v)", to, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
