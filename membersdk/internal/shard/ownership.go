package shard

import (
	"sync"
	"sync/atomic"
	"time"
)

// Ownership is the token a shard worker holds while the member owns its
// shard. Every XACK (and dead-letter move) goes through WithOwnership, which
// checks the token right before the write and holds it while the write is in
// flight. Once the token is lost it never comes back: a shard that is
// assigned again gets a new worker with a new token.
//
// Lose is immediate and never blocks, so fencing can stop all acks at once;
// Seal additionally waits until no write that passed the check is still in
// flight, so that after a worker reports its shard released no XACK from it
// can reach Redis.
type Ownership struct {
	lost atomic.Bool
	gate *Gate // the consumer's self-fence state, shared by all tokens
	mu   sync.RWMutex
}

// NewOwnership is a valid token checked against gate.
func NewOwnership(gate *Gate) *Ownership {
	return &Ownership{gate: gate}
}

// Valid reports whether writes on behalf of the shard are still allowed.
func (o *Ownership) Valid() bool {
	return !o.lost.Load() && o.gate.Open()
}

// ValidAt is Valid with the clock already read (per-entry checks share one
// clock read).
func (o *Ownership) ValidAt(now time.Time) bool {
	return !o.lost.Load() && o.gate.OpenAt(now)
}

// Gate is the member-wide half of the ownership check. It is closed
// when the member self-fenced, and also as soon as the self-fence deadline
// (last successful heartbeat + lease TTL − margin) has passed, whether or not
// the heartbeat loop has noticed yet: after a pause (SIGSTOP, a long GC, a
// suspended VM) a handler can reach its XACK before the loop runs, and by
// then the coordinator may have given the shard to another member.
type Gate struct {
	// Fenced is set while the member is self-fenced.
	Fenced   atomic.Bool
	deadline atomic.Pointer[time.Time] // nil: no successful heartbeat yet
	// Now is the consumer's clock.
	Now func() time.Time
}

// Open reports whether the member may still read and acknowledge.
func (g *Gate) Open() bool {
	if g.Fenced.Load() {
		return false
	}
	d := g.deadline.Load()
	return d == nil || g.Now().Before(*d)
}

// OpenAt is Open at time now (read from the same clock, g.Now).
func (g *Gate) OpenAt(now time.Time) bool {
	if g.Fenced.Load() {
		return false
	}
	d := g.deadline.Load()
	return d == nil || now.Before(*d)
}

// Extend moves the deadline after a successful heartbeat.
func (g *Gate) Extend(deadline time.Time) { g.deadline.Store(&deadline) }

// WithOwnership runs write if the token is valid and reports whether it ran.
func (o *Ownership) WithOwnership(write func() error) (bool, error) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if !o.Valid() {
		return false, nil
	}
	return true, write()
}

// Lose revokes the token at once; writes already past the check may finish.
func (o *Ownership) Lose() { o.lost.Store(true) }

// Seal revokes the token and waits for writes already past the check.
func (o *Ownership) Seal() {
	o.lost.Store(true)
	o.mu.Lock()
	//nolint:staticcheck // empty critical section: waiting for readers is the point
	o.mu.Unlock()
}
