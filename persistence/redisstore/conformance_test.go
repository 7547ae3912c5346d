package redisstore_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/persistencetest"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

// newStoreFactory returns a factory that gives each subtest its own key
// prefix on the shared client.
func newStoreFactory(c redis.UniversalClient) func(t *testing.T) persistence.Store {
	var n atomic.Int64
	return func(t *testing.T) persistence.Store {
		s, err := redisstore.New(c, redisstore.Options{KeyPrefix: fmt.Sprintf("t%d", n.Add(1))})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func TestConformanceRedisServer(t *testing.T) {
	srv := redistest.Start(t)
	persistencetest.Run(t, newStoreFactory(srv.Client()))
}

func TestConformanceMiniredis(t *testing.T) {
	mr := miniredis.RunT(t)
	// miniredis expires keys only when told that time passed.
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				mr.FastForward(10 * time.Millisecond)
			}
		}
	}()
	c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	persistencetest.Run(t, newStoreFactory(c))
}
