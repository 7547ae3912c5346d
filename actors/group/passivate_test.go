package group

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Passivation never cuts a lease short: a FENCED member that may still read its shards keeps the
// group active however long it is idle otherwise; once nobody occupies it, it passivates after
// the idle time and gives its activation up.
func TestPassivationWaitsForMembersThatMayStillRead(t *testing.T) {
	clk := newClock()
	s := newShell(t, rules, clk.Now) // lease 10s
	s.manual.Store(true)
	require.NoError(t, s.system.Root.StopFuture(s.pid).Wait())
	s.deps.IdlePassivation = time.Second
	s.spawn()
	round := func() {
		clk.Advance(500 * time.Millisecond)
		s.system.Root.Send(s.pid, &NodeConfirmed{Start: clk.Now()})
	}

	a := s.beat("a", 0)
	require.Len(t, a.Assignment.AssignedShards, 4)
	f := s.beat("a", a.MemberEpoch+3, protocol.Indexes(a.Assignment.AssignedShards)...) // a future epoch: fenced
	require.Equal(t, protocol.StatusFencedMemberEpoch, f.Status)
	m, _ := member(s.debug(), "a")
	require.Equal(t, string(model.StateFenced), m.State)
	require.Len(t, m.Assigned, 4, "a fenced member's shards stay blocked: it may still read them")
	for i := 0; i < 10; i++ { // 5s idle in every other respect, within a's lease
		round()
		require.True(t, s.debug().Active, "passivated while a fenced member may still read its shards")
	}

	r := s.beat("a", 0) // a rejoins owning nothing, then leaves
	r = s.beat("a", r.MemberEpoch, protocol.Indexes(r.Assignment.AssignedShards)...)
	leave := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "leave", MemberID: "a", MemberEpoch: -1}
	require.Equal(t, protocol.StatusOK, s.ask(&groupmsg.HeartbeatRequest{PathMemberID: "a", Request: leave}).(*groupmsg.HeartbeatReply).Response.Status)
	for i := 0; i < 4; i++ {
		round()
	}
	res, err := s.system.Root.RequestFuture(s.pid, &groupmsg.DebugRequest{}, time.Second).Result()
	if d, ok := res.(*groupmsg.DebugState); ok && err == nil {
		require.False(t, d.Active, "an idle group did not passivate") // answered while stopping
	}
	snap, err := s.store.LoadGroup(t.Context(), key)
	require.NoError(t, err)
	require.Equal(t, "", snap.Owner, "passivation gives the activation up")
}
