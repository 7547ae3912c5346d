package membersdk

import (
	"sync"
	"sync/atomic"
	"time"
)

// ownership is the token a shard worker holds while the member owns its
// shard. Every XACK (and dead-letter move) goes through withOwnership, which
// checks the token right before the write and holds it while the write is in
// flight. Once the token is lost it never comes back: a shard that is
// assigned again gets a new worker with a new token.
//
// lose() is immediate and never blocks, so fencing can stop all acks at once;
// seal() additionally waits until no write that passed the check is still in
// flight, so that after a worker reports its shard released no XACK from it
// can reach Redis.
type ownership struct {
	lost atomic.Bool
	gate *fenceGate // the consumer's self-fence state, shared by all tokens
	mu   sync.RWMutex
}

func newOwnership(gate *fenceGate) *ownership {
	return &ownership{gate: gate}
}

// valid reports whether writes on behalf of the shard are still allowed.
func (o *ownership) valid() bool {
	return !o.lost.Load() && o.gate.open()
}

// validAt is valid with the clock already read (per-entry checks share one
// clock read).
func (o *ownership) validAt(now time.Time) bool {
	return !o.lost.Load() && o.gate.openAt(now)
}

// fenceGate is the member-wide half of the ownership check. It is closed
// when the member self-fenced, and also as soon as the self-fence deadline
// (last successful heartbeat + lease TTL − margin) has passed, whether or not
// the heartbeat loop has noticed yet: after a pause (SIGSTOP, a long GC, a
// suspended VM) a handler can reach its XACK before the loop runs, and by
// then the coordinator may have given the shard to another member.
type fenceGate struct {
	fenced   atomic.Bool
	deadline atomic.Pointer[time.Time] // nil: no successful heartbeat yet
	now      func() time.Time
}

// open reports whether the member may still read and acknowledge.
func (g *fenceGate) open() bool {
	if g.fenced.Load() {
		return false
	}
	d := g.deadline.Load()
	return d == nil || g.now().Before(*d)
}

// openAt is open at time now (read from the same clock, g.now).
func (g *fenceGate) openAt(now time.Time) bool {
	if g.fenced.Load() {
		return false
	}
	d := g.deadline.Load()
	return d == nil || now.Before(*d)
}

// extend moves the deadline after a successful heartbeat.
func (g *fenceGate) extend(deadline time.Time) { g.deadline.Store(&deadline) }

// withOwnership runs write if the token is valid and reports whether it ran.
func (o *ownership) withOwnership(write func() error) (bool, error) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if !o.valid() {
		return false, nil
	}
	return true, write()
}

// lose revokes the token at once; writes already past the check may finish.
func (o *ownership) lose() { o.lost.Store(true) }

// seal revokes the token and waits for writes already past the check.
func (o *ownership) seal() {
	o.lost.Store(true)
	o.mu.Lock()
	//nolint:staticcheck // empty critical section: waiting for readers is the point
	o.mu.Unlock()
}
