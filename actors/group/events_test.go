package group

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// The ring keeps the latest maxRecentEvents events, newest first.
func TestRecentEventsKeepsTheLatest(t *testing.T) {
	var r eventRing
	require.Empty(t, r.list())
	for i := 0; i < maxRecentEvents+7; i++ {
		r.add(protocol.MemberEvent{MemberID: fmt.Sprint(i)})
		l := r.list()
		require.Len(t, l, min(i+1, maxRecentEvents))
		require.Equal(t, fmt.Sprint(i), l[0].MemberID, "newest first")
		require.Equal(t, fmt.Sprint(max(0, i+1-maxRecentEvents)), l[len(l)-1].MemberID, "oldest kept last")
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
	require.Equal(t, protocol.MemberEvent{MemberID: "b", State: "EXPIRED", MemberEpoch: ev[0].MemberEpoch, At: ev[0].At, Cause: causeLeaseExpired}, ev[0])
	require.Equal(t, "a", ev[1].MemberID)
	require.Equal(t, "FENCED", ev[1].State)
}

// The stored record is the ring with the new events added (the ring itself
// waits for the write), newest first, and restores to the same list; a
// record longer than the bound keeps the newest, a broken one restores to
// none.
func TestRecentEventsRecordRoundTrip(t *testing.T) {
	var r eventRing
	for i := 0; i < maxRecentEvents-1; i++ {
		r.add(protocol.MemberEvent{MemberID: fmt.Sprint(i), State: "FENCED", MemberEpoch: int64(i)})
	}
	evs := []protocol.MemberEvent{{MemberID: "x", State: "EXPIRED"}, {MemberID: "y", State: "FENCED", Cause: "stale"}}
	rec := r.encodeWith(evs)
	require.Len(t, r.list(), maxRecentEvents-1, "the ring is unchanged until the write succeeds")

	var got eventRing
	got.restore(rec)
	l := got.list()
	require.Len(t, l, maxRecentEvents, "bounded")
	require.Equal(t, "y", l[0].MemberID, "newest first")
	require.Equal(t, "x", l[1].MemberID)
	require.Equal(t, "1", l[len(l)-1].MemberID, "the oldest one fell out")
	for _, e := range evs {
		r.add(e)
	}
	require.Equal(t, r.list(), l, "what is stored is what the ring then holds")

	long := make([]protocol.MemberEvent, maxRecentEvents+5)
	for i := range long {
		long[i] = protocol.MemberEvent{MemberID: fmt.Sprint(i)}
	}
	b, err := json.Marshal(long)
	require.NoError(t, err)
	got.restore(b)
	require.Len(t, got.list(), maxRecentEvents)
	require.Equal(t, "0", got.list()[0].MemberID, "the newest of a longer record are kept")

	got.restore([]byte("{not json"))
	require.Empty(t, got.list())
	got.restore(nil)
	require.Empty(t, got.list())
}
