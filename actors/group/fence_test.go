package group

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// revoked reports shards as released (REVOKED) on a heartbeat.
func (s *shell) beatRevoked(id string, epoch int64, owned []int, released ...int) protocol.HeartbeatResponse {
	s.t.Helper()
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: fmt.Sprintf("%s-%d-r", id, epoch), MemberID: id,
		MemberEpoch: epoch, OwnedShards: protocol.ShardIDs(owned)}
	for _, sh := range released {
		req.RevokingShards = append(req.RevokingShards, protocol.RevokingShard{Shard: protocol.ShardID{ShardIndex: sh}, State: "REVOKED"})
	}
	return s.ask(&groupmsg.HeartbeatRequest{PathMemberID: id, Request: req}).(*groupmsg.HeartbeatReply).Response
}

// checkFences asserts the fence invariants after a step: every fence names
// exactly the shard's holder in memory (so no response told a member it may
// read a shard whose fence does not name it), every member's assigned shards
// are fenced to it, and each fence's token strictly increased over its writes.
func (s *shell) checkFences(step string, resps ...protocol.HeartbeatResponse) {
	s.t.Helper()
	d := s.debug()
	for sh := 0; sh < 4; sh++ {
		f := s.prov.Fence(key.StreamPrefix, key.ConsumerGroup, sh)
		require.Equal(s.t, d.Holders[sh], f.Owner, "%s: fence of shard %d vs holder", step, sh)
	}
	for _, r := range resps {
		for _, sh := range protocol.Indexes(r.Assignment.AssignedShards) {
			f := s.prov.Fence(key.StreamPrefix, key.ConsumerGroup, sh)
			require.Equal(s.t, r.MemberID, f.Owner, "%s: %s told it may read shard %d", step, r.MemberID, sh)
		}
	}
	last := map[string]int64{}
	for _, e := range s.prov.FenceLog() {
		require.Greater(s.t, e.Token, last[e.Stream], "%s: token of %s did not increase", step, e.Stream)
		last[e.Stream] = e.Token
	}
}

// ownersOf lists the owners shard sh's fence named, in order.
func (s *shell) ownersOf(sh int) []string {
	var out []string
	for _, e := range s.prov.FenceLog() {
		if e.Stream == fmt.Sprintf("%s:%d", key.StreamPrefix, sh) {
			out = append(out, e.Owner)
		}
	}
	return out
}

func TestFenceFollowsAHandOff(t *testing.T) {
	clk := newClock()
	s := newShell(t, rules, clk.Now)
	a := s.beat("a", 0)
	s.checkFences("a joins", a)
	require.Len(t, a.Assignment.AssignedShards, 4)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)

	writes := len(s.prov.FenceLog())
	for i := 0; i < 20; i++ {
		a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	}
	require.Len(t, s.prov.FenceLog(), writes, "steady heartbeats write no fence")

	b := s.beat("b", 0)
	require.Empty(t, b.Assignment.AssignedShards, "a still holds every shard")
	s.checkFences("b joins", b)
	b = s.beat("b", b.MemberEpoch) // b confirmed: the target moves
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	m, _ := member(s.debug(), "a")
	require.NotEmpty(t, m.Revoking, "a is told to revoke")
	s.checkFences("a told to revoke", a)
	moving := m.Revoking

	a = s.beatRevoked("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards), moving...)
	s.checkFences("a released", a)
	b = s.beat("b", b.MemberEpoch)
	s.checkFences("b granted", a, b)
	require.ElementsMatch(t, moving, protocol.Indexes(b.Assignment.AssignedShards))
	for _, sh := range moving {
		owners := s.ownersOf(sh)
		require.Equal(t, []string{"a", "", "b"}, owners, "shard %d: a, released, then b", sh)
		f := s.prov.Fence(key.StreamPrefix, key.ConsumerGroup, sh)
		require.Equal(t, b.MemberEpoch, f.Epoch)
	}

	// a's lease runs out: its shards' fences are cleared before anyone else gets them.
	s.manual.Store(true)
	for i := 0; i < 40; i++ { // step the clock, the store confirming the activation at each step
		clk.Advance(500 * time.Millisecond)
		s.system.Root.Send(s.pid, &NodeConfirmed{Start: clk.Now()})
		b = s.beat("b", b.MemberEpoch, protocol.Indexes(b.Assignment.AssignedShards)...)
		s.system.Root.Send(s.pid, &groupmsg.PruneTick{}) // runs the timers now (member actors run on wall time)
		if ma, _ := member(s.debug(), "a"); ma.State == "EXPIRED" {
			break
		}
		if i%4 == 0 {
			s.checkFences("while a's lease runs", b)
		}
	}
	ma, _ := member(s.debug(), "a")
	require.Equal(t, "EXPIRED", ma.State)
	s.checkFences("a expired", b)
	cleared := 0
	for sh := 0; sh < 4; sh++ {
		if owners := s.ownersOf(sh); owners[len(owners)-1] == "" {
			require.Equal(t, []string{"a", ""}, owners, "shard %d: a's fence cleared when its lease ran out", sh)
			cleared++
		}
	}
	require.Equal(t, 4-len(moving), cleared, "every shard a still held is cleared")
	b = s.beat("b", b.MemberEpoch, protocol.Indexes(b.Assignment.AssignedShards)...)
	b = s.beat("b", b.MemberEpoch, protocol.Indexes(b.Assignment.AssignedShards)...)
	s.checkFences("b takes all", b)
	require.Len(t, b.Assignment.AssignedShards, 4)
}

func TestFailedFenceWriteAnswersRetryAndSavesNothing(t *testing.T) {
	s := newShell(t, rules, time.Now)
	s.prov.SetFenceError(persistence.ErrUnavailable)
	r := s.beat("a", 0)
	require.Equal(t, protocol.StatusRetry, r.Status)
	snap, err := s.store.LoadGroup(context.Background(), key)
	require.NoError(t, err)
	require.NotContains(t, snap.Members, "a", "a decision whose fences failed is not saved")
	_, known := member(s.debug(), "a")
	require.False(t, known)

	s.prov.SetFenceError(nil)
	r = s.beat("a", 0)
	require.Equal(t, protocol.StatusOK, r.Status)
	require.Len(t, r.Assignment.AssignedShards, 4)
	s.checkFences("after the outage", r)
}

// A fence written for a decision whose group write then failed is put back
// to memory's holder before the group answers again.
func TestFenceOfAnUnsavedDecisionIsRepaired(t *testing.T) {
	s := newShell(t, rules, time.Now)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	b := s.beat("b", 0)
	b = s.beat("b", b.MemberEpoch)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	m, _ := member(s.debug(), "a")
	require.NotEmpty(t, m.Revoking)

	s.store.SetUnavailable(true)
	r := s.beatRevoked("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards), m.Revoking...)
	require.Equal(t, protocol.StatusRetry, r.Status)
	for _, sh := range m.Revoking {
		f := s.prov.Fence(key.StreamPrefix, key.ConsumerGroup, sh)
		require.Equal(t, "", f.Owner, "the fence was cleared before the failed save")
	}
	s.store.SetUnavailable(false)
	r = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.NotEqual(t, protocol.StatusRetry, r.Status)
	s.checkFences("after the repair", r) // memory (reloaded) still has a holding them: so do the fences
	r = s.beatRevoked("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards), m.Revoking...)
	require.NotEqual(t, protocol.StatusRetry, r.Status)
	b = s.beat("b", b.MemberEpoch)
	s.checkFences("b granted", r, b)
	require.ElementsMatch(t, m.Revoking, protocol.Indexes(b.Assignment.AssignedShards))
}

func TestDeleteClearsFences(t *testing.T) {
	s := newShell(t, rules, time.Now)
	a := s.beat("a", 0)
	s.checkFences("a joins", a)
	d := s.ask(&groupmsg.DeleteRequest{Force: true}).(*groupmsg.DeleteReply)
	require.NoError(t, d.Err)
	require.True(t, d.Deleted)
	for sh := 0; sh < 4; sh++ {
		f := s.prov.Fence(key.StreamPrefix, key.ConsumerGroup, sh)
		require.Equal(t, "", f.Owner)
		require.Equal(t, int64(2), f.Token)
	}
}

// A node that crashed between a fence write and its group write leaves a
// fence out of step with the stored state: the next activation finds it and
// rewrites it before answering; fences in step are not touched.
func TestActivationRepairsFencesOutOfStep(t *testing.T) {
	s := newShell(t, rules, time.Now)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.NoError(t, s.system.Root.StopFuture(s.pid).Wait())
	// The crashed node had cleared shard 1's fence (a's release, say) but not stored it.
	require.NoError(t, s.prov.SetFences(context.Background(), key.StreamPrefix, key.ConsumerGroup,
		[]persistence.FenceUpdate{{Shard: 1, Owner: ""}}))
	untouched := s.prov.Fence(key.StreamPrefix, key.ConsumerGroup, 0)

	s.spawn()
	r := s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusOK, r.Status)
	s.checkFences("after the new activation", r)
	require.Equal(t, int64(3), s.prov.Fence(key.StreamPrefix, key.ConsumerGroup, 1).Token, "granted, cleared, rewritten")
	require.Equal(t, untouched, s.prov.Fence(key.StreamPrefix, key.ConsumerGroup, 0), "a fence in step is not rewritten")
}

// A member fenced for not finishing its revocation in time keeps holding its
// shards until its lease runs out: their fences keep naming it (nobody else
// may ack), and are cleared only at its expiry.
func TestFencedMemberKeepsItsFencesUntilExpiry(t *testing.T) {
	clk := newClock()
	s := newShell(t, rules, clk.Now)
	s.manual.Store(true)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	b := s.beat("b", 0)
	b = s.beat("b", b.MemberEpoch)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	m, _ := member(s.debug(), "a")
	require.NotEmpty(t, m.Revoking)
	step := func() {
		clk.Advance(500 * time.Millisecond)
		s.system.Root.Send(s.pid, &NodeConfirmed{Start: clk.Now()})
		b = s.beat("b", b.MemberEpoch, protocol.Indexes(b.Assignment.AssignedShards)...)
		s.system.Root.Send(s.pid, &groupmsg.PruneTick{})
	}
	// a keeps heartbeating (draining) past the rebalance timeout: it is fenced.
	state := ""
	for i := 0; i < 40 && state != "FENCED"; i++ {
		step()
		req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: fmt.Sprintf("a-drain-%d", i), MemberID: "a",
			MemberEpoch: a.MemberEpoch, OwnedShards: a.Assignment.AssignedShards}
		for _, sh := range m.Revoking {
			req.RevokingShards = append(req.RevokingShards, protocol.RevokingShard{Shard: protocol.ShardID{ShardIndex: sh}, State: "DRAINING"})
		}
		s.ask(&groupmsg.HeartbeatRequest{PathMemberID: "a", Request: req})
		ma, _ := member(s.debug(), "a")
		state = ma.State
	}
	require.Equal(t, "FENCED", state)
	s.checkFences("a fenced", b)
	for sh := 0; sh < 4; sh++ {
		require.Equal(t, "a", s.prov.Fence(key.StreamPrefix, key.ConsumerGroup, sh).Owner, "shard %d: a fenced member still holds", sh)
	}
	// a falls silent: at its expiry every fence is cleared, then b is granted.
	for i := 0; i < 40 && state != "EXPIRED"; i++ {
		step()
		ma, _ := member(s.debug(), "a")
		state = ma.State
	}
	require.Equal(t, "EXPIRED", state)
	s.checkFences("a expired", b)
	for i := 0; i < 4 && len(b.Assignment.AssignedShards) < 4; i++ {
		b = s.beat("b", b.MemberEpoch, protocol.Indexes(b.Assignment.AssignedShards)...)
	}
	require.Len(t, b.Assignment.AssignedShards, 4)
	s.checkFences("b took over", b)
	for sh := 0; sh < 4; sh++ {
		require.Equal(t, []string{"a", "", "b"}, s.ownersOf(sh), "shard %d", sh)
	}
}

// A deletion that fails after clearing the fences gives the holders their
// fences back before the group answers again.
func TestFailedDeleteRestoresFences(t *testing.T) {
	s := newShell(t, rules, time.Now)
	a := s.beat("a", 0)
	s.store.SetUnavailable(true)
	d := s.ask(&groupmsg.DeleteRequest{Force: true}).(*groupmsg.DeleteReply)
	require.Error(t, d.Err)
	require.False(t, d.Deleted)
	require.Equal(t, "", s.prov.Fence(key.StreamPrefix, key.ConsumerGroup, 0).Owner, "cleared before the delete")
	s.store.SetUnavailable(false)
	r := s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusOK, r.Status)
	s.checkFences("after the failed delete", r)
}
