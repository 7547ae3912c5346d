package group

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

func (s *shell) beatInstance(id, instance string, epoch int64, owned ...int) protocol.HeartbeatResponse {
	s.t.Helper()
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "r", MemberID: id, MemberEpoch: epoch,
		OwnedShards: protocol.ShardIDs(owned), InstanceID: instance}
	return s.ask(&groupmsg.HeartbeatRequest{PathMemberID: id, Request: req}).(*groupmsg.HeartbeatReply).Response
}

// A static member's temporary leave survives a restart of its group actor (the hold is in the
// stored record), and its next incarnation, under another member id, gets its shards back.
func TestStaticHoldSurvivesReactivationAndHandsBack(t *testing.T) {
	static := rules
	static.StaticSessionTimeout = time.Minute
	clk := newClock()
	s := newShell(t, static, clk.Now)
	a := s.beatInstance("pod-a-1", "pod-a", 0)
	a = s.beatInstance("pod-a-1", "pod-a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusOK, a.Status)
	shards := protocol.Indexes(a.Assignment.AssignedShards)
	require.NotEmpty(t, shards)
	left := s.beatInstance("pod-a-1", "pod-a", protocol.EpochTemporaryLeave, shards...)
	require.Equal(t, protocol.StatusOK, left.Status)
	require.Equal(t, protocol.EpochTemporaryLeave, left.MemberEpoch)

	require.NoError(t, s.system.Root.StopFuture(s.pid).Wait())
	clk.Advance(10 * time.Second) // within the session timeout
	s.spawn()
	m, ok := member(s.debug(), "pod-a-1")
	require.True(t, ok, "the away member is still there after a re-activation")
	require.Equal(t, string(model.StateActive), m.State)
	require.Equal(t, shards, m.Target, "its target is kept")
	require.InDelta(t, (50 * time.Second).Milliseconds(), m.LeaseLeftMs, 100, "held until the stored session deadline")

	b := s.beatInstance("pod-a-2", "pod-a", 0)
	require.Equal(t, protocol.StatusOK, b.Status, b.Message)
	require.Equal(t, shards, protocol.Indexes(b.Assignment.AssignedShards), "the next incarnation gets exactly those shards")
	_, ok = member(s.debug(), "pod-a-1")
	require.False(t, ok, "the old record is replaced")
	again := s.beatInstance("pod-a-3", "pod-a", 0)
	require.Equal(t, protocol.StatusUnreleasedInstanceID, again.Status, "a second live claim is refused")
}

// The hold ends at the session deadline through the member's own timer (the node's clock):
// the member expires and its shards are free for others.
func TestStaticHoldExpiresAtTheSessionDeadline(t *testing.T) {
	static := rules
	static.StaticSessionTimeout = 200 * time.Millisecond // the lease is 10 s
	s := newShell(t, static, time.Now)
	a := s.beatInstance("pod-a-1", "pod-a", 0)
	left := s.beatInstance("pod-a-1", "pod-a", protocol.EpochTemporaryLeave, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.EpochTemporaryLeave, left.MemberEpoch)
	deadline := time.Now().Add(5 * time.Second)
	for {
		m, ok := member(s.debug(), "pod-a-1")
		require.True(t, ok)
		if m.State == string(model.StateExpired) {
			break
		}
		require.True(t, time.Now().Before(deadline), "still %s 5 s after a 200 ms hold", m.State)
		time.Sleep(20 * time.Millisecond)
	}
	require.Empty(t, s.debug().Holders, "its shards are free")
}

// A second live claim of an instance id is refused, writes nothing, and is logged once
// however often the second process retries.
func TestUnreleasedInstanceIsLoggedOnceAndWritesNothing(t *testing.T) {
	log := &syncBuffer{}
	s := identityShell(t, &identityCounter{}, log, func(persistence.GroupKey, string, string, time.Time) {})
	a := s.beatInstance("pod-a-1", "pod-a", 0)
	require.Equal(t, protocol.StatusOK, a.Status)
	writes := s.store.Writes()
	for range 3 {
		r := s.beatInstance("pod-a-2", "pod-a", 0)
		require.Equal(t, protocol.StatusUnreleasedInstanceID, r.Status)
		require.Contains(t, r.Message, `instanceId "pod-a" is held by member "pod-a-1"`)
	}
	require.Equal(t, writes, s.store.Writes(), "a refused claim writes nothing")
	require.Equal(t, 1, strings.Count(log.String(), "two processes use one instance id"), log.String())
}
