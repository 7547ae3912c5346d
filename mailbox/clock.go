package mailbox

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisClock estimates the Redis server's clock (which stamps entry ids)
// from this node's clock and an offset measured with TIME at most every
// clockRefresh: expiry is judged by the clock that wrote the entry id, with
// no command per request.
type redisClock struct {
	rdb    redis.UniversalClient
	mu     sync.Mutex
	offset time.Duration
	at     time.Time // when offset was measured; zero = never
}

const clockRefresh = 5 * time.Second

// now is the Redis clock at local time local.
func (c *redisClock) now(ctx context.Context, local time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() || local.Sub(c.at) > clockRefresh {
		before := time.Now()
		if t, err := c.rdb.Time(ctx).Result(); err == nil {
			after := time.Now()
			c.offset = t.Sub(before.Add(after.Sub(before) / 2))
			c.at = after
		}
	}
	return local.Add(c.offset)
}
