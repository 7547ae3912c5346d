package membersdk

import (
	"context"
	"time"

	"github.com/cenkalti/backoff/v5"
)

// retryJitter spreads every retry wait over [½, 1½] of the nominal interval,
// so that members which failed together (a Redis or coordinator outage) do
// not retry in lock-step when it comes back.
const retryJitter = 0.5

// retryPacer is an exponential back-off with jitter (cenkalti/backoff): the
// nominal wait starts at base and grows by multiplier up to maxWait; each
// wait is drawn at random around it and never exceeds maxWait. It is not
// safe for concurrent use: each retry loop owns one.
type retryPacer struct {
	b       backoff.ExponentialBackOff
	maxWait time.Duration
}

func newRetryPacer(base, maxWait time.Duration, multiplier float64) *retryPacer {
	p := &retryPacer{
		b: backoff.ExponentialBackOff{
			InitialInterval:     base,
			RandomizationFactor: retryJitter,
			Multiplier:          multiplier,
			MaxInterval:         maxWait,
		},
		maxWait: maxWait,
	}
	p.b.Reset()
	return p
}

// newBackoff is the doubling back-off used for handler and Redis retries.
func newBackoff(base, maxWait time.Duration) *retryPacer { return newRetryPacer(base, maxWait, 2) }

// reset starts the next series of retries from base again.
func (p *retryPacer) reset() { p.b.Reset() }

// next is the wait before the next attempt.
func (p *retryPacer) next() time.Duration { return min(p.b.NextBackOff(), p.maxWait) }

// wait sleeps the next wait; false if ctx ended first.
func (p *retryPacer) wait(ctx context.Context) bool {
	t := time.NewTimer(p.next())
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
