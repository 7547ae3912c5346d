package console

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/host"
	"github.com/redisstream/coordinator/api"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence/redisstore"
	"github.com/redisstream/coordinator/test/harness"
)

// startNode runs one node on a shared redis-server with an open API front
// (no authentication); stop stops the node.
func startNode(t *testing.T, r *redistest.Server, id string) (base string, stop func()) {
	t.Helper()
	store, err := redisstore.New(r.Client(), redisstore.Options{})
	require.NoError(t, err)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := host.New(host.Options{Store: store, Provisioner: redisstore.NewProvisioner(r.Client()), NodeID: id,
		Rules: rules, TrustEmptyStore: true, Logger: logger})
	require.NoError(t, h.Start(context.Background()))
	t.Cleanup(h.Stop)
	return serve(t, api.New(api.Config{CoordinatorID: id, Logger: logger}, h.Service())), h.Stop
}

// A fencing shown by the console is still shown after the group moved to
// another node: the first node stops, the second activates the group, and a
// fresh page on the second node (no memory of the first) lists it.
func TestConsoleEventsSurviveAGroupMove(t *testing.T) {
	chromium := chromiumPath(t)
	r := redistest.Start(t)
	first, stopFirst := startNode(t, r, "node-a")
	br := newBrowser(t, chromium)
	c := harness.NewClient(first)
	c.CreateStream(t, "orders", 2)
	a := harness.NewMember(c, "orders", "workers", "a")
	a.Beat(t)
	a.Beat(t)
	req := a.Request()
	req.MemberEpoch = a.Epoch + 5
	fenced := a.Send(t, req)
	require.Equal(t, protocol.StatusFencedMemberEpoch, fenced.Status)
	a.Apply(fenced)
	a.Beat(t) // rejoins

	eventsJS := `[...document.querySelectorAll('#events li[data-member]')].map(li => li.dataset.member + ' ' + li.dataset.state + ': ' + li.textContent)`
	shows := func(v []string) bool {
		return len(v) == 1 && strings.HasPrefix(v[0], "a FENCED: ") && strings.Contains(v[0], "is stale or ahead")
	}
	br.run(chromedp.Navigate(first + "/console"))
	waitFor(br, "the fencing on the first node", eventsJS, shows)

	stopFirst() // hands the group over
	second, _ := startNode(t, r, "node-b")
	c = harness.NewClient(second)
	a.C = c
	a.Beat(t) // the second node activates the group
	br.run(chromedp.Navigate(second + "/console"))
	waitFor(br, "the second node hosting the group", `[...document.querySelectorAll('#group-list a[data-group]')].length`, func(n int) bool { return n == 1 })
	waitFor(br, "the fencing on the second node", eventsJS, shows)
	br.run(chromedp.Navigate(second + "/console#/cluster"))
	waitFor(br, "node-b hosting the group", `[...document.querySelectorAll('#cluster-table tr[data-node="node-b"] [data-group]')].map(li => li.dataset.group)`,
		func(v []string) bool { return len(v) == 1 && v[0] == "orders/workers" })
	br.screenshot("10-events-after-move")
	require.Empty(t, br.scriptErrors(), "the page logged script or security errors")
}
