package retry

import (
	"context"
	"time"

	"github.com/cenkalti/backoff/v5"
)

// retryJitter spreads every retry wait over [½, 1½] of the nominal interval,
// so that members which failed together (a Redis or coordinator outage) do
// not retry in lock-step when it comes back.
const retryJitter = 0.5

// Pacer is an exponential back-off with jitter (cenkalti/backoff): the
// nominal wait starts at base and grows by multiplier up to maxWait; each
// wait is drawn at random around it and never exceeds maxWait. It is not
// safe for concurrent use: each retry loop owns one.
type Pacer struct {
	b       backoff.ExponentialBackOff
	maxWait time.Duration
}

// New is a back-off from base growing by multiplier up to maxWait.
func New(base, maxWait time.Duration, multiplier float64) *Pacer {
	p := &Pacer{
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

// Paces reports whether p is a back-off from base up to maxWait, so that a
// caller can keep p while its bounds stay the same.
func (p *Pacer) Paces(base, maxWait time.Duration) bool {
	return p.b.InitialInterval == base && p.maxWait == maxWait
}

// NewBackoff is the doubling back-off used for handler and Redis retries.
func NewBackoff(base, maxWait time.Duration) *Pacer { return New(base, maxWait, 2) }

// Reset starts the next series of retries from base again.
func (p *Pacer) Reset() { p.b.Reset() }

// Next is the wait before the next attempt.
func (p *Pacer) Next() time.Duration { return min(p.b.NextBackOff(), p.maxWait) }

// Wait sleeps the next wait; false if ctx ended first.
func (p *Pacer) Wait(ctx context.Context) bool {
	t := time.NewTimer(p.Next())
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
