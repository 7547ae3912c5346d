package console

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// The members table shows a static member's instance id, and while it is away on a temporary
// leave (memberEpoch -2) that its shards are held for it, with a countdown to the end of the
// hold; a dynamic member shows neither.
func TestConsoleShowsStaticMemberAway(t *testing.T) {
	chromium := chromiumPath(t)
	base, _ := startNode(t, redistest.Start(t), "node-static")
	br := newBrowser(t, chromium)
	c := harness.NewClient(base)
	c.CreateStream(t, "orders", 4)
	s, d := harness.NewMember(c, "orders", "workers", "s1"), harness.NewMember(c, "orders", "workers", "d1")
	beat := func(m *harness.Member, instance string, epoch int64) protocol.HeartbeatResponse {
		req := m.Request()
		req.InstanceID, req.MemberEpoch = instance, epoch
		resp := m.Send(t, req)
		m.Apply(resp)
		return resp
	}
	for range 4 { // both join, s1 hands two shards over to d1
		s.Release()
		beat(s, "pod-0", s.Epoch)
		d.Release()
		d.Beat(t)
	}
	require.Len(t, s.Shards(), 2)
	require.Len(t, d.Shards(), 2)
	left := beat(s, "pod-0", -2)
	require.Equal(t, protocol.StatusOK, left.Status, "temporary leave: %s", left.Message)
	require.EqualValues(t, -2, left.MemberEpoch)

	rowsJS := `[...document.querySelectorAll('#members tbody tr[data-member]')].map(tr => tr.dataset.member + ' | ' +
		tr.querySelector('[data-col=member]').textContent + ' | ' + tr.querySelector('[data-col=state]').textContent)`
	br.run(chromedp.Navigate(base + "/console"))
	rows := waitFor(br, "s1 away with its shards held", rowsJS, func(v []string) bool {
		return len(v) == 2 && strings.Contains(strings.Join(v, "\n"), "away, shards held for ")
	})
	require.Regexp(t, `^d1 \| d1 \| ACTIVE`, rows[0], "a dynamic member: no instance, no hold")
	require.NotContains(t, rows[0], "instance")
	require.Regexp(t, `^s1 \| s1instance pod-0 \| ACTIVE.*away, shards held for \d+\.\d s$`, rows[1])
	br.screenshot("11-static-member-away")
	require.Empty(t, br.scriptErrors(), "the page logged script or security errors")
}
