package limits

import (
	"math"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Bucket is the volatile token bucket of Config.JoinRate. Evaluations never mutate the group,
// so a consumed token travels in the Change and Apply installs it. The zero Bucket is full.
type Bucket struct {
	tokens  float64
	last    time.Time
	started bool
}

// Take refills the bucket up to now and takes one token; ok is false when none is left.
// burst ≤ 0 means max(1, floor(rate)). A clock that goes back refills nothing.
func (b Bucket) Take(now time.Time, rate float64, burst int) (Bucket, bool) {
	capacity := float64(burst)
	if burst <= 0 {
		capacity = max(1, math.Floor(rate))
	}
	if !b.started {
		b = Bucket{tokens: capacity, last: now, started: true}
	}
	if now.After(b.last) {
		b.tokens = min(capacity, b.tokens+now.Sub(b.last).Seconds()*rate)
		b.last = now
	}
	if b.tokens < 1 {
		return b, false
	}
	b.tokens--
	return b, true
}

// Droppable reports whether MaxRetained may drop m: it is EXPIRED, or FENCED holding nothing.
func Droppable(m *model.Member) bool {
	return m.State == model.StateExpired || (m.State == model.StateFenced && len(m.Assigned)+len(m.Revoking) == 0)
}

// OldestFirst orders droppable members the way MaxRetained drops them: the longest in their
// state first, then by id.
func OldestFirst(a, b *model.Member) int {
	if c := a.StateSince.Compare(b.StateSince); c != 0 {
		return c
	}
	if a.ID < b.ID {
		return -1
	}
	if a.ID > b.ID {
		return 1
	}
	return 0
}
