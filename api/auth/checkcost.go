package auth

import (
	"sync"
	"time"
)

// checkCost keeps the running average of how long a bcrypt check takes on
// this node, so that an answer that skips the check can take as long
// without spending the CPU: an unknown username from a locked-out address
// (authlimit.go) waits this long, like a known one whose password is
// checked. The average follows load (an exponentially weighted mean of the
// last checks, weight 1/8), starting from one check timed at start-up.
type checkCost struct {
	mu  sync.Mutex
	avg time.Duration
}

func (c *checkCost) observe(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.avg == 0 {
		c.avg = d
		return
	}
	c.avg += (d - c.avg) / 8
}

func (c *checkCost) average() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.avg
}

// waitLikeCheck is how an answer waits instead of checking; a seam for
// tests that count the waits.
var WaitLikeCheck = time.Sleep
