package routing

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Fetch asks the coordinator for the current routing.
type Fetch func(ctx context.Context) (protocol.ProducerRouting, error)

// Cache holds the last routing fetched. It is safe for concurrent use.
type Cache struct {
	ttl   time.Duration
	fetch Fetch
	log   *slog.Logger
	// Now is time.Now; tests replace it right after New, before any Get.
	Now func() time.Time

	mu  sync.Mutex             // serialises refreshes
	cur atomic.Pointer[Cached] // read without a lock by every Get
	gen atomic.Int64           // bumped by Invalidate: older routing is stale
}

// Cached is a fetched routing; it is fresh while younger than the TTL and
// no invalidation happened since its fetch started. Do not modify R.
type Cached struct {
	R         protocol.ProducerRouting
	fetchedAt time.Time
	gen       int64 // Cache.gen when the fetch started
}

// New returns an empty cache that fetches with fetch and keeps a routing
// for ttl.
func New(ttl time.Duration, fetch Fetch, log *slog.Logger) *Cache {
	return &Cache{ttl: ttl, fetch: fetch, log: log, Now: time.Now}
}

// Invalidate drops the cached routing; the next Get fetches it again.
func (c *Cache) Invalidate() { c.gen.Add(1) }

// ObserveMetadataVersion invalidates the routing if v is newer than the
// cached metadataVersion.
func (c *Cache) ObserveMetadataVersion(v int64) {
	if r := c.cur.Load(); r != nil && v > r.R.MetadataVersion {
		c.Invalidate()
	}
}

// Get is the cached routing if fresh (no lock), else one fetch at a time.
func (c *Cache) Get(ctx context.Context) (*Cached, error) {
	if r := c.fresh(); r != nil {
		return r, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.fresh(); r != nil {
		return r, nil // another caller refreshed it meanwhile
	}
	return c.refreshLocked(ctx)
}

func (c *Cache) fresh() *Cached {
	r := c.cur.Load()
	if r == nil || r.gen != c.gen.Load() || c.Now().Sub(r.fetchedAt) >= c.ttl {
		return nil
	}
	return r
}

func (c *Cache) refreshLocked(ctx context.Context) (*Cached, error) {
	gen := c.gen.Load() // an Invalidate during the fetch makes the result stale
	r, err := c.fetch(ctx)
	if err != nil {
		return nil, fmt.Errorf("membersdk: fetch producer routing: %w", err)
	}
	if r.ShardCount < 0 {
		return nil, fmt.Errorf("membersdk: producer routing has shardCount %d", r.ShardCount)
	}
	if prev := c.cur.Load(); prev != nil && r.MetadataVersion != prev.R.MetadataVersion {
		c.log.Info("producer routing changed", "metadataVersion", r.MetadataVersion, "shardCount", r.ShardCount,
			"previousVersion", prev.R.MetadataVersion, "previousShardCount", prev.R.ShardCount)
	}
	cached := &Cached{R: r, fetchedAt: c.Now(), gen: gen}
	c.cur.Store(cached)
	return cached, nil
}
