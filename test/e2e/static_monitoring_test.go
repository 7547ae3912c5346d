package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// Monitoring shows a static member's instanceId and, while it is away on a temporary leave,
// heldUntil: until when its shards are held for its next incarnation. A dynamic member shows
// neither; the next incarnation's join clears the hold.
func TestMonitoringShowsStaticMemberHeld(t *testing.T) {
	e := start(t, map[string]string{"RSC_COORDINATION_STATIC_SESSION_TIMEOUT": "20s"})
	e.c.CreateStream(t, "orders", 4)
	s, d := e.member("s1"), e.member("d1")
	beat := func(m *harness.Member, epoch int64) protocol.HeartbeatResponse {
		m.Release()
		req := m.Request()
		req.InstanceID, req.MemberEpoch = "pod-0", epoch
		resp := m.Send(t, req)
		m.Apply(resp)
		return resp
	}
	for range 4 {
		beat(s, s.Epoch)
		beatAll(t, 1, d)
	}
	ms := e.members(t)
	require.Equal(t, "pod-0", ms["s1"].InstanceID)
	require.Empty(t, ms["s1"].HeldUntil, "not away")
	require.Empty(t, ms["d1"].InstanceID)

	own := s.Shards()
	before := time.Now()
	left := beat(s, -2)
	require.EqualValues(t, -2, left.MemberEpoch, "temporary leave: %s", left.Message)
	ms = e.members(t)
	held, err := time.Parse(time.RFC3339Nano, ms["s1"].HeldUntil)
	require.NoError(t, err, "heldUntil %q", ms["s1"].HeldUntil)
	require.WithinDuration(t, before.Add(20*time.Second), held, 5*time.Second, "held for the static session timeout")
	require.Equal(t, own, shardsOf(ms["s1"].TargetAssignment), "its target is kept")
	require.Empty(t, ms["d1"].HeldUntil)

	back := e.member("s1-next")
	beat(back, 0)
	ms = e.members(t)
	require.Equal(t, "pod-0", ms["s1-next"].InstanceID)
	require.Empty(t, ms["s1-next"].HeldUntil, "the next incarnation took the hold over")
	require.Equal(t, own, shardsOf(ms["s1-next"].TargetAssignment))
}
