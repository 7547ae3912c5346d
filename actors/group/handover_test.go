package group

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A graceful release hands the members' timers to the next activation: a member that stopped
// heartbeating keeps its deadline; after an activation that ended without a release (a crash),
// one the store had not confirmed lately, or a slow move, the next one gives fresh leases.
func TestReleaseHandsTheLeasesOver(t *testing.T) {
	clk := newClock()
	s := newShell(t, rules, clk.Now) // lease 10s, interval 1s
	s.store.SetNow(clk.Now)          // the store measures the hand-over's age on the same clock
	s.manual.Store(true)
	round := func(d time.Duration) { // node rounds every 500ms: the activation stays confirmed
		for ; d > 0; d -= 500 * time.Millisecond {
			clk.Advance(500 * time.Millisecond)
			s.system.Root.Send(s.pid, &NodeConfirmed{Start: clk.Now()})
			s.debug() // handled before the clock moves on
		}
	}
	leaseOf := func(id string) string {
		m, ok := member(s.debug(), id)
		require.True(t, ok, id)
		return m.LeaseDeadline
	}
	a := s.beat("a", 0)
	require.Equal(t, protocol.StatusOK, a.Status)
	deadA := clk.Now().Add(rules.LeaseTTL) // a heartbeats no more
	round(4 * time.Second)
	b := s.beat("b", 0)
	require.Equal(t, protocol.StatusOK, b.Status)
	deadlineB := clk.Now().Add(rules.LeaseTTL)

	for i := 0; i < 3; i++ { // three graceful moves, 1s apart
		round(time.Second)
		require.IsType(t, &groupmsg.ErrorReply{}, s.ask(&groupmsg.ReleaseRequest{}))
		s.spawn()
		require.Equal(t, stamp(deadA), leaseOf("a"), "move %d: the dead member keeps its deadline", i)
		require.Equal(t, stamp(deadlineB), leaseOf("b"), "move %d", i)
	}
	snap, err := s.store.LoadGroup(t.Context(), key)
	require.NoError(t, err)
	require.NotEmpty(t, snap.Owner)

	// An activation that ends without a release (a crash; here: its release cannot reach the
	// store): the next one cannot know the leases.
	s.store.SetUnavailable(true)
	require.NoError(t, s.system.Root.StopFuture(s.pid).Wait())
	s.store.SetUnavailable(false)
	s.spawn()
	require.Equal(t, stamp(clk.Now().Add(rules.LeaseTTL)), leaseOf("a"), "fresh lease after a crash")

	// An activation the store has not confirmed for longer than the validity hands nothing over.
	clk.Advance(Validity(rules) + time.Millisecond)
	require.IsType(t, &groupmsg.ErrorReply{}, s.ask(&groupmsg.ReleaseRequest{}))
	s.spawn()
	require.Equal(t, stamp(clk.Now().Add(rules.LeaseTTL)), leaseOf("a"), "fresh lease after an unconfirmed release")

	// A slow move (nobody hosted the group for longer than TTL − interval): fresh leases.
	round(time.Second)
	require.IsType(t, &groupmsg.ErrorReply{}, s.ask(&groupmsg.ReleaseRequest{}))
	clk.Advance(groupstate.SlowMove(rules) + time.Millisecond)
	s.spawn()
	require.Equal(t, stamp(clk.Now().Add(rules.LeaseTTL)), leaseOf("a"), "fresh lease after a slow move")
}

// FuzzHandover feeds arbitrary stored hand-overs to an activation's restore: never a panic, and
// a restored group is consistent and no member's lease is longer than a fresh one.
func FuzzHandover(f *testing.F) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Add(encodeHandover(map[string]groupstate.Lease{"a": {LastHeartbeat: at, Deadline: at.Add(time.Second), RevokeDeadline: at.Add(time.Minute)}}, at))
	f.Add([]byte(`{"v":1,"members":{"a":{"hb":-1,"lease":-99999999999},"b":{"lease":1}}}`))
	g := groupstate.New(rules, "orders", "workers", 4, 1)
	for _, id := range []string{"a", "b"} {
		g.Apply(g.Heartbeat(model.Heartbeat{ProtocolVersion: 1, RequestID: id, PathMemberID: id, MemberID: id}, at).Change)
	}
	meta, members := g.Meta(), g.Members()
	f.Fuzz(func(t *testing.T, data []byte) {
		leases, err := decodeHandover(data, at)
		if err != nil {
			return
		}
		now := at.Add(time.Second)
		r, err := groupstate.RestoreHandedOver(rules, meta, members, leases, at, now)
		require.NoError(t, err)
		require.Empty(t, r.CheckInvariants())
		for _, m := range r.Members() {
			require.False(t, m.LeaseDeadline.After(now.Add(rules.LeaseTTL)), "lease longer than a fresh one")
		}
		r.Apply(r.Tick(now.Add(2 * rules.LeaseTTL)))
		require.Empty(t, r.CheckInvariants())
	})
}

func TestHandoverEncodingRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	leases := map[string]groupstate.Lease{
		"live":       {LastHeartbeat: at.Add(-2 * time.Second), Deadline: at.Add(13 * time.Second), RevokeDeadline: at.Add(time.Minute)},
		"passed":     {LastHeartbeat: at.Add(-20 * time.Second), Deadline: at.Add(-5*time.Second - 500*time.Nanosecond)},
		"granted":    {Deadline: at.Add(7*time.Second + 1)}, // no heartbeat since a fresh lease; 1ns rounds up
		"odd id\n{}": {Deadline: at},
	}
	b := encodeHandover(leases, at)
	// The next activation runs on a clock 1h ahead; the release was 3s before it.
	next := at.Add(time.Hour)
	got, err := decodeHandover(b, next)
	require.NoError(t, err)
	shift := next.Sub(at)
	require.Len(t, got, len(leases))
	for id, l := range leases {
		g := got[id]
		require.Equal(t, l.LastHeartbeat.IsZero(), g.LastHeartbeat.IsZero(), id)
		require.Equal(t, l.RevokeDeadline.IsZero(), g.RevokeDeadline.IsZero(), id)
		require.False(t, g.Deadline.Before(l.Deadline.Add(shift)), "%s: a deadline is never handed over earlier", id)
		require.Less(t, g.Deadline.Sub(l.Deadline.Add(shift)), time.Microsecond, id)
		if !l.LastHeartbeat.IsZero() {
			require.Equal(t, l.LastHeartbeat.Add(shift), g.LastHeartbeat, id)
		}
		if !l.RevokeDeadline.IsZero() {
			require.Equal(t, l.RevokeDeadline.Add(shift), g.RevokeDeadline, id)
		}
	}

	_, err = decodeHandover([]byte(`{"v":2,"members":{}}`), next)
	require.Error(t, err, "another format is ignored")
	_, err = decodeHandover([]byte(`not json`), next)
	require.Error(t, err)
	_, err = decodeHandover([]byte(`{"v":1,"members":{"a":{"lease":9000000000000000}}}`), next)
	require.Error(t, err, "an offset that would overflow a duration is refused")
}
