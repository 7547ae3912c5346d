package auth

import (
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/redisstream/coordinator/api/httpx"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// maxBuckets bounds the limiter's memory; beyond it, full (idle) buckets are
// dropped first, which forgets nothing.
const maxBuckets = 10_000

// limiter is a keyed token bucket: each key refills rate tokens per second up
// to burst. Safe for concurrent use.
type limiter struct {
	rate  float64
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// newLimiter refills rate tokens per second up to burst (auth.admin-rate-*,
// auth.failed-auth-*-rate/-burst; config checks both are positive).
func newLimiter(rate float64, burst int, now func() time.Time) *limiter {
	return &limiter{rate: rate, burst: float64(burst), now: now, buckets: map[string]*bucket{}}
}

// allow takes one token for key. When none is left it returns false and how
// long until one is.
func (l *limiter) allow(key string) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucketAt(key, l.now())
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, l.waitFor(b)
}

// evict drops full buckets; if that is not enough, arbitrary ones.
func (l *limiter) evict(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
		}
	}
	for k := range l.buckets {
		if len(l.buckets) < maxBuckets {
			break
		}
		delete(l.buckets, k)
	}
}

// rateLimited returns middleware that limits requests per key(c); over the
// limit it answers 429 RATE_LIMIT_EXCEEDED with Retry-After in whole seconds (≥ 1).
func (s *Guard) RateLimited(key func(*fiber.Ctx) string) fiber.Handler {
	if s.limiter == nil {
		return nil
	}
	return func(c *fiber.Ctx) error {
		k := key(c)
		if k == "" {
			return c.Next()
		}
		ok, wait := s.limiter.allow(k)
		if ok {
			return c.Next()
		}
		secs := int(math.Ceil(wait.Seconds()))
		if secs < 1 {
			secs = 1
		}
		return &httpx.Error{Status: 429, Code: protocol.CodeRateLimited,
			Msg: "too many requests from this principal; retry after " + strconv.Itoa(secs) + "s", RetryAfter: secs}
	}
}

// loginKey is empty: logins are not limited per request (a per-address
// limit locked real users behind one address out); their failed
// credentials are, like on every route (authlimit.go). The route is still
// audited.
func LoginKey(*fiber.Ctx) string { return "" }

func AdminKey(c *fiber.Ctx) string { return "admin " + principalName(c) }

// bucketAt is key's bucket refilled up to now. Callers hold l.mu.
func (l *limiter) bucketAt(key string, now time.Time) *bucket {
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= maxBuckets {
			l.evict(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(l.burst, b.tokens+elapsed*l.rate)
	}
	b.last = now
	return b
}

func (l *limiter) waitFor(b *bucket) time.Duration {
	if l.rate <= 0 {
		return time.Hour
	}
	return time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// blocked reports, without taking a token, whether key has none left, and
// how long until it has one.
func (l *limiter) blocked(key string) (bool, time.Duration) {
	if l == nil {
		return false, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.buckets[key]; !ok {
		return false, 0 // do not create buckets for mere looks
	}
	b := l.bucketAt(key, now)
	if b.tokens >= 1 {
		return false, 0
	}
	return true, l.waitFor(b)
}

// take is allow that also reports whether this take emptied the bucket (it
// succeeded and left less than one token): the start of a lock-out.
func (l *limiter) take(key string) (ok, emptied bool, wait time.Duration) {
	if l == nil {
		return true, false, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucketAt(key, now)
	if b.tokens >= 1 {
		b.tokens--
		return true, b.tokens < 1, 0
	}
	return false, false, l.waitFor(b)
}
