package console

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// The console shows a group's assignment mode and sets it (assignment.js): a WRITE account
// picks capacity and the coordinator stores it; a READ account is told it may not.
func TestConsoleSetsAssignmentMode(t *testing.T) {
	chromium := chromiumPath(t) // skips here when it is absent (outside CI)
	coord := startCoordinator(t)
	br := newBrowser(t, chromium)
	c := harness.NewClient(coord.secured)
	c.User, c.Password = admin, adminPass
	c.CreateStream(t, "orders", 4)
	a := harness.NewMember(c, "orders", "workers", "a")
	a.Beat(t)

	login := func(user, pass string) {
		br.run(chromedp.Navigate(coord.secured + "/console#/g/orders/workers"))
		_, err := eval[bool](br, `(sessionStorage.clear(), true)`) // log the previous account out
		require.NoError(t, err)
		br.run(chromedp.Reload())
		waitFor(br, "the login form", `!document.getElementById('login').hidden`, func(v bool) bool { return v })
		br.run(chromedp.SendKeys(chromedp.ID("login-user"), user), chromedp.SendKeys(chromedp.ID("login-password"), pass),
			chromedp.Click(chromedp.CSS("#login-form button[type=submit]")))
		waitFor(br, "the group's summary", `document.getElementById('group-summary').textContent`, func(s string) bool {
			return strings.Contains(s, "Assignmentuniform") || strings.Contains(s, "Assignmentcapacity")
		})
	}
	set := func(mode string) string {
		_, err := eval[bool](br, `(document.getElementById('assignment-mode').value = '`+mode+`') !== ''`)
		require.NoError(t, err)
		br.run(chromedp.SendKeys(chromedp.ID("assignment-reason"), "console test"), chromedp.Click(chromedp.CSS("#assignment-form button[type=submit]")))
		return waitFor(br, "the answer", `document.getElementById('assignment-note').textContent`, func(s string) bool { return s != "" && s != "Setting…" })
	}

	login(viewer, viewerPass)
	note := set("capacity")
	require.Contains(t, note, "WRITE role", "a READ account may not change the group")

	login(admin, adminPass)
	note = set("capacity")
	require.Contains(t, note, "Now capacity")
	waitFor(br, "the summary with the new mode", `document.getElementById('group-summary').textContent`, func(s string) bool { return strings.Contains(s, "Assignmentcapacity") })
	var g protocol.GroupResponse
	c.MustDo(t, "GET", "/coord/v1/streams/orders/groups/workers", nil, &g, 200)
	require.Equal(t, protocol.AssignmentCapacity, g.Assignment)
	br.screenshot("assignment-capacity")
}
