package group

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/events"
	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// The ring keeps the latest events.MaxRecent events, newest first.
func TestRecentEventsKeepsTheLatest(t *testing.T) {
	var r events.Ring
	require.Empty(t, r.List())
	for i := 0; i < events.MaxRecent+7; i++ {
		r.Add(protocol.MemberEvent{MemberID: fmt.Sprint(i)})
		l := r.List()
		require.Len(t, l, min(i+1, events.MaxRecent))
		require.Equal(t, fmt.Sprint(i), l[0].MemberID, "newest first")
		require.Equal(t, fmt.Sprint(max(0, i+1-events.MaxRecent)), l[len(l)-1].MemberID, "oldest kept last")
	}
}

func recent(t *testing.T, s *shell) []protocol.MemberEvent {
	t.Helper()
	d := s.ask(&groupmsg.DescribeRequest{}).(*groupmsg.Description)
	require.NoError(t, d.Err)
	return d.Members.RecentEvents
}

// A fencing and an expiry are listed with their cause, and stay listed
// after the member rejoins (its record is ACTIVE again).
func TestMembersViewListsFencingsAndExpiries(t *testing.T) {
	clk := newClock()
	s := newShell(t, rules, clk.Now)
	s.manual.Store(true)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Empty(t, recent(t, s))

	r := s.beat("a", a.MemberEpoch+5)
	require.Equal(t, protocol.StatusFencedMemberEpoch, r.Status)
	ev := recent(t, s)
	require.Len(t, ev, 1)
	require.Equal(t, "a", ev[0].MemberID)
	require.Equal(t, "FENCED", ev[0].State)
	require.Contains(t, ev[0].Cause, "stale or ahead")
	require.NotContains(t, ev[0].Cause, "stop reading")
	require.NotEmpty(t, ev[0].At)

	// a rejoins at once (as the SDK does): no longer FENCED, its fencing still listed.
	s.beat("a", 0)
	m, _ := member(s.debug(), "a")
	require.NotEqual(t, "FENCED", m.State)
	require.Equal(t, ev, recent(t, s))

	// b joins and falls silent: its lease runs out (a keeps heartbeating).
	s.beat("b", 0)
	expired := func(ev []protocol.MemberEvent) bool { return len(ev) > 0 && ev[0].MemberID == "b" }
	for i := 0; i < 60 && !expired(ev); i++ { // steps shorter than a confirmation round, or the group reloads and renews every lease
		clk.Advance(rules.LeaseTTL / 20)
		s.system.Root.Send(s.pid, &NodeConfirmed{Start: clk.Now()})
		s.beat("a", m.Epoch, m.Assigned...)
		m, _ = member(s.debug(), "a")
		s.system.Root.Send(s.pid, &groupmsg.PruneTick{})
		ev = recent(t, s)
	}
	require.Len(t, ev, 2)
	require.Equal(t, protocol.MemberEvent{MemberID: "b", State: "EXPIRED", MemberEpoch: ev[0].MemberEpoch, At: ev[0].At, Cause: events.CauseLeaseExpired}, ev[0])
	require.Equal(t, "a", ev[1].MemberID)
	require.Equal(t, "FENCED", ev[1].State)
}
