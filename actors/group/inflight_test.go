package group

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

func revokeDetails(t *testing.T, s *shell) map[int]protocol.RevokeDetail {
	t.Helper()
	d := s.ask(&groupmsg.DescribeRequest{}).(*groupmsg.Description)
	require.NoError(t, d.Err)
	out := map[int]protocol.RevokeDetail{}
	for _, r := range d.Assignments.RevokeDetails {
		out[r.Shard.ShardIndex] = r
	}
	return out
}

// The assignments view shows, for each shard being revoked, the work in
// flight its holder last reported on it; reports on shards it does not
// revoke are not kept, and the entry goes once the revocation is over.
func TestRevokeDetailsCarryReportedInFlight(t *testing.T) {
	s := newShell(t, rules, time.Now)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Len(t, a.Assignment.AssignedShards, 4)
	b := s.beat("b", 0)
	b = s.beat("b", b.MemberEpoch) // confirmed: b joins the target
	require.Len(t, b.Assignment.PendingShards, 2)
	owned := protocol.Indexes(a.Assignment.AssignedShards)
	a = s.beat("a", a.MemberEpoch, owned...) // told to give two up
	require.Len(t, a.Assignment.AssignedShards, 2)
	moving := protocol.Indexes(b.Assignment.PendingShards)
	require.Empty(t, revokeDetails(t, s)[moving[0]].InFlight, "nothing reported yet")

	drain := func(inFlight ...int) {
		req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "a-drain", MemberID: "a", MemberEpoch: a.MemberEpoch,
			OwnedShards: a.Assignment.AssignedShards}
		for i, sh := range moving {
			req.RevokingShards = append(req.RevokingShards, protocol.RevokingShard{Shard: protocol.ShardID{ShardIndex: sh}, State: "DRAINING", InFlight: inFlight[i]})
		}
		// A shard a does not revoke: ignored.
		req.RevokingShards = append(req.RevokingShards, protocol.RevokingShard{Shard: a.Assignment.AssignedShards[0], State: "DRAINING", InFlight: 99})
		s.ask(&groupmsg.HeartbeatRequest{PathMemberID: "a", Request: req})
	}
	drain(3, 0)
	d := revokeDetails(t, s)
	require.Len(t, d, 2)
	require.Equal(t, 3, d[moving[0]].InFlight)
	require.Equal(t, 0, d[moving[1]].InFlight)
	require.Equal(t, "b", d[moving[0]].To)
	drain(1, 0)
	require.Equal(t, 1, revokeDetails(t, s)[moving[0]].InFlight)

	// Released: nothing is revoked any more, and nothing is kept.
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusOK, a.Status)
	require.Empty(t, revokeDetails(t, s))
}
