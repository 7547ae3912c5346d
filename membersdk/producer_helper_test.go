package membersdk

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// backgroundProducer XADDs one entry per millisecond, round-robin over the
// test stream's shards, until stopped; stop returns every entry it produced
// as "{streamKey}/{id}".
func backgroundProducer(t *testing.T, rdb *redis.Client, shards int) (stop func() map[string]bool) {
	t.Helper()
	var (
		mu       sync.Mutex
		produced = map[string]bool{}
		stopped  atomic.Bool
		wg       sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stopped.Load(); i++ {
			key := protocol.StreamKey(testStream, i%shards)
			id, err := rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: key, Values: []any{"i", i}}).Result()
			if err != nil {
				t.Errorf("xadd: %v", err)
				return
			}
			mu.Lock()
			produced[key+"/"+id] = true
			mu.Unlock()
			time.Sleep(time.Millisecond) // the producer's pace, not a wait
		}
	}()
	return func() map[string]bool {
		stopped.Store(true)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return produced
	}
}
