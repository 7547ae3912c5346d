package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// hb is an answered exchange: member sent at sentMs listing owned, got
// status with epochs at sentMs+10, and then reads reading. Lease 2s (self-fence after 1s).
func hb(member string, sentMs int, owned []int, status protocol.Status, memberEpoch, groupEpoch int64, reading []int) harness.Exchange {
	return harness.Exchange{Member: member, SentAt: at(sentMs), RecvAt: at(sentMs + 10), HTTPStatus: 200,
		Request:  protocol.HeartbeatRequest{MemberID: member, MemberEpoch: 1, OwnedShards: protocol.ShardIDs(owned)},
		Response: protocol.HeartbeatResponse{Status: status, MemberEpoch: memberEpoch, GroupEpoch: groupEpoch, MemberLeaseTTLMs: 2000},
		Reading:  reading}
}

func TestSelfFenceAfterMatchesTheSDKDefault(t *testing.T) {
	require.Equal(t, time.Second, SelfFenceAfter(2*time.Second))
	require.Equal(t, 12*time.Second, SelfFenceAfter(15*time.Second))
	require.Equal(t, 500*time.Millisecond, SelfFenceAfter(time.Second))
}

func TestCleanHandOverHasNoOverlap(t *testing.T) {
	ex := []harness.Exchange{
		hb("a", 0, nil, protocol.StatusOK, 1, 1, []int{0}),
		hb("a", 200, []int{0}, protocol.StatusOK, 1, 2, []int{0}), // told to revoke: still draining
		hb("b", 250, nil, protocol.StatusOK, 2, 2, nil),           // pending
		hb("a", 400, nil, protocol.StatusOK, 2, 2, nil),           // released at 400
		hb("b", 450, nil, protocol.StatusOK, 2, 2, []int{0}),      // told at 460
	}
	iv := Intervals(ex, at(1000))
	require.Empty(t, Overlaps(iv))
	require.Empty(t, Regressions(ex))
	require.Equal(t, []Interval{
		{Member: "a", Shard: 0, From: at(10), To: at(400)},
		{Member: "b", Shard: 0, From: at(460), To: at(1000)},
	}, iv)
	gaps := Gaps(iv, 1, at(10), at(1000))
	require.Equal(t, []Gap{{Shard: 0, From: at(400), Len: 60 * time.Millisecond}}, gaps)
}

func TestShardToldToTwoReadersIsAnOverlap(t *testing.T) {
	ex := []harness.Exchange{
		hb("a", 0, nil, protocol.StatusOK, 1, 1, []int{0}),
		hb("b", 300, nil, protocol.StatusOK, 1, 1, []int{0}),
		hb("a", 500, []int{0}, protocol.StatusOK, 1, 1, []int{0}),
	}
	require.Len(t, Overlaps(Intervals(ex, at(1000))), 1)
}

func TestSelfFenceDeadlineEndsTheRead(t *testing.T) {
	ex := []harness.Exchange{
		hb("a", 0, nil, protocol.StatusOK, 1, 1, []int{0}),
		// a's heartbeats fail from here on; it stops reading at 0+1s.
		{Member: "a", SentAt: at(200), RecvAt: at(1200), Err: errTimeout, Request: protocol.HeartbeatRequest{OwnedShards: protocol.ShardIDs([]int{0})}, Reading: []int{0}},
		hb("b", 1500, nil, protocol.StatusOK, 2, 2, []int{0}),
	}
	iv := Intervals(ex, at(3000))
	require.Empty(t, Overlaps(iv))
	require.Equal(t, at(1000), iv[0].To)
	// A RETRY does not extend the deadline either.
	ex[1].Err, ex[1].HTTPStatus, ex[1].Response = nil, 200, protocol.HeartbeatResponse{Status: protocol.StatusRetry}
	require.Empty(t, Overlaps(Intervals(ex, at(3000))))
}

func TestFencedAnswerEndsTheRead(t *testing.T) {
	ex := []harness.Exchange{
		hb("a", 0, nil, protocol.StatusOK, 1, 1, []int{0}),
		hb("a", 200, []int{0}, protocol.StatusFencedMemberEpoch, 0, 0, nil),
		hb("b", 300, nil, protocol.StatusOK, 2, 2, []int{0}),
	}
	require.Empty(t, Overlaps(Intervals(ex, at(1000))))
	require.Len(t, Refusals(ex, at(0)), 1)
	require.Empty(t, Refusals(ex, at(500)))
}

func TestEpochsGoingBackwardsAreRegressions(t *testing.T) {
	ex := []harness.Exchange{
		hb("a", 0, nil, protocol.StatusOK, 5, 5, nil),
		hb("b", 100, nil, protocol.StatusOK, 5, 4, nil), // sent after a's answer: group epoch went back
		hb("a", 200, nil, protocol.StatusOK, 4, 5, nil), // a's own epoch went back
	}
	require.Len(t, Regressions(ex), 2)

	// Concurrent requests are not ordered: b sent before a's answer arrived.
	concurrent := []harness.Exchange{
		hb("a", 0, nil, protocol.StatusOK, 5, 5, nil),
		hb("b", 5, nil, protocol.StatusOK, 5, 4, nil),
	}
	require.Empty(t, Regressions(concurrent))
}

func TestLeaveReleasesEverythingButDraining(t *testing.T) {
	leave := hb("a", 200, []int{0, 1}, protocol.StatusOK, -1, 2, nil)
	leave.Request.MemberEpoch = protocol.EpochLeave
	leave.Request.RevokingShards = []protocol.RevokingShard{{Shard: protocol.ShardID{ShardIndex: 1}, State: protocol.RevokeStateDraining}}
	leave.Reading = []int{1}
	ex := []harness.Exchange{hb("a", 0, nil, protocol.StatusOK, 1, 1, []int{0, 1}), leave}
	iv := Intervals(ex, at(500))
	require.Equal(t, []Interval{
		{Member: "a", Shard: 0, From: at(10), To: at(200)},
		{Member: "a", Shard: 1, From: at(10), To: at(500)},
	}, iv)
}

var errTimeout = &timeoutError{}

type timeoutError struct{}

func (*timeoutError) Error() string { return "timeout" }
