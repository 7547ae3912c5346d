package group

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// After a round that announced a takeover, an activation whose read-back failed must not be
// confirmed by later rounds that announce nothing new: it may be the one taken over. Only a
// successful read-back confirms it again.
func TestFailedTakeoverCheckKeepsTheActivationUnconfirmed(t *testing.T) {
	clk := newClock()
	s, hs := newHookedShell(t, rules, clk.Now) // lease 10s: validity 1.67s
	s.manual.Store(true)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusOK, a.Status)
	round := func(check bool) {
		s.system.Root.Send(s.pid, &NodeConfirmed{Start: clk.Now(), Check: check})
		s.debug() // the round has been handled
	}
	hs.mu.Lock()
	hs.check = func(persistence.Store, context.Context, persistence.GroupKey, int64) error {
		return fmt.Errorf("read-back: %w", persistence.ErrUnavailable)
	}
	hs.mu.Unlock()
	clk.Advance(time.Second)
	round(true) // takeover announced, read-back fails
	clk.Advance(500 * time.Millisecond)
	round(false) // nothing new announced: must not count
	clk.Advance(500 * time.Millisecond)
	round(false)
	r := s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusRetry, r.Status, "confirmed by rounds although its takeover check never succeeded")

	hs.mu.Lock()
	hs.check = nil
	hs.mu.Unlock()
	round(false) // the pending check is retried and succeeds
	r = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusOK, r.Status, r.Message)
}

// A round with no takeover announced confirms from its start, not from when it arrived.
func TestRoundConfirmsFromItsStart(t *testing.T) {
	clk := newClock()
	s := newShell(t, rules, clk.Now)
	s.manual.Store(true)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	start := clk.Now().Add(100 * time.Millisecond)
	clk.Advance(1500 * time.Millisecond) // the round's answer arrives late
	s.system.Root.Send(s.pid, &NodeConfirmed{Start: start})
	s.debug()
	clk.Advance(Validity(rules) + 150*time.Millisecond - 1500*time.Millisecond) // now = start + validity + 50ms
	r := s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusRetry, r.Status, "answered more than validity after the round started")
}
