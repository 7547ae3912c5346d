package console

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// gridRow is one row of the shard grid as the page renders it (text).
type gridRow struct {
	Shard   int    `json:"shard"`
	Target  string `json:"target"`
	Current string `json:"current"`
	State   string `json:"state"`
	// StateText is the whole cell: the state and whom the shard waits for.
	StateText string `json:"stateText"`
	Revoking  string `json:"revoking"`
}

const gridJS = `[...document.querySelectorAll('#shard-grid tbody tr[data-shard]')].map(tr => ({
	shard: +tr.dataset.shard,
	target: tr.querySelector('[data-col=target]').textContent,
	current: tr.querySelector('[data-col=current]').textContent,
	state: tr.querySelector('[data-col=state] .badge').textContent,
	stateText: tr.querySelector('[data-col=state]').textContent,
	revoking: tr.querySelector('[data-col=revoking]').textContent}))`

// memberRow is one row of the members table as rendered.
type memberRow struct {
	ID       string `json:"id"`
	State    string `json:"state"`
	Epoch    string `json:"epoch"`
	Lease    string `json:"lease"`
	Capacity string `json:"capacity"`
	Owns     string `json:"owns"`
}

const membersJS = `[...document.querySelectorAll('#members tbody tr[data-member]')].map(tr => ({
	id: tr.dataset.member,
	state: tr.querySelector('[data-col=state] .badge').textContent,
	epoch: tr.querySelector('[data-col=epoch]').textContent,
	lease: tr.querySelector('[data-col=lease]').textContent,
	capacity: tr.querySelector('[data-col=capacity]').textContent,
	owns: tr.querySelector('[data-col=owns]').textContent}))`

// want is the grid expected for one shard: its target and current owner.
type want struct{ target, current string }

// gridShows reports whether the rendered grid has exactly the shards of w,
// each with the given owners.
func gridShows(w map[int]want) func([]gridRow) bool {
	return func(rows []gridRow) bool {
		if len(rows) != len(w) {
			return false
		}
		for _, r := range rows {
			x, ok := w[r.Shard]
			if !ok || r.Target != x.target || r.Current != x.current {
				return false
			}
		}
		return true
	}
}

// targets reads the coordinator's target assignment (shard → member).
func targets(t *testing.T, c *harness.Client) map[int]string {
	t.Helper()
	var a protocol.AssignmentsResponse
	c.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/workers/assignments", nil, &a, 200)
	out := map[int]string{}
	for id, shards := range a.TargetAssignment {
		for _, s := range shards {
			out[s.ShardIndex] = id
		}
	}
	return out
}

// The console shows a group's hand-off as it happens. Member a owns all four
// shards; b joins; a is told to give two up and drains them; a releases them
// and b takes them over. At each step the test reads the rendered shard grid
// (and the members table) and compares it with what the members really hold
// and with the coordinator's target assignment. It logs in through the page's
// form on a front with authentication on, then checks that a front with
// authentication off needs no login, and that a fencing shows up in the list
// of recent fencings.
func TestConsoleShowsHandOff(t *testing.T) {
	start := time.Now()
	chromium := chromiumPath(t) // skips here when it is absent (outside CI)
	coord := startCoordinator(t)
	br := newBrowser(t, chromium) // closed before the coordinator stops (cleanups run last-first)
	c := harness.NewClient(coord.secured)
	c.User, c.Password = admin, adminPass
	c.CreateStream(t, "orders", 4)
	for i := 1; i <= 3; i++ {
		require.NoError(t, coord.redis.Client().XAdd(context.Background(), &redis.XAddArgs{Stream: "orders:0", Values: []string{"n", fmt.Sprint(i)}}).Err())
	}
	a, b := harness.NewMember(c, "orders", "workers", "a"), harness.NewMember(c, "orders", "workers", "b")
	a.Beat(t)
	a.Beat(t)
	require.Equal(t, []int{0, 1, 2, 3}, a.Shards())

	// Authentication is on: the page asks for a login, refuses a wrong
	// password, and then keeps its bearer token in sessionStorage.
	br.run(chromedp.Navigate(coord.secured + "/console"))
	waitFor(br, "the login form", `!document.getElementById('login').hidden && document.getElementById('app').hidden`, func(v bool) bool { return v })
	br.run(chromedp.SendKeys(chromedp.ID("login-user"), viewer), chromedp.SendKeys(chromedp.ID("login-password"), "wrong"),
		chromedp.Click(chromedp.CSS("#login-form button[type=submit]")))
	waitFor(br, "a refused login", `document.getElementById('login-error').textContent`, func(s string) bool { return strings.Contains(s, "Wrong user name or password") })
	loginShot := br.screenshot("0-login-refused")
	_, err := eval[bool](br, `(document.getElementById('login-password').value = '') === ''`)
	require.NoError(t, err)
	br.run(chromedp.SendKeys(chromedp.ID("login-password"), viewerPass),
		chromedp.Click(chromedp.CSS("#login-form button[type=submit]")))
	waitFor(br, "the console after login", `document.getElementById('login').hidden && !document.getElementById('app').hidden && sessionStorage.getItem('rsc.console.token') !== null`, func(v bool) bool { return v })
	waitFor(br, "the group in the list", `[...document.querySelectorAll('#group-list [data-stream="orders"] a[data-group]')].map(a => a.dataset.group)`, func(v []string) bool { return len(v) == 1 && v[0] == "workers" })

	// Before: a is target and current owner of every shard.
	before := map[int]want{0: {"a", "a"}, 1: {"a", "a"}, 2: {"a", "a"}, 3: {"a", "a"}}
	rows := waitFor(br, "a owning every shard", gridJS, gridShows(before))
	for _, r := range rows {
		require.Equal(t, "OWNED", r.State, "shard %d", r.Shard)
	}
	ms := waitFor(br, "member a", membersJS, func(v []memberRow) bool { return len(v) == 1 && v[0].Epoch == fmt.Sprint(a.Epoch) })
	require.Equal(t, memberRow{ID: "a", State: "ACTIVE", Epoch: fmt.Sprint(a.Epoch), Lease: ms[0].Lease, Capacity: "4 / 4", Owns: "0, 1, 2, 3"}, ms[0])
	require.Regexp(t, regexp.MustCompile(`^\d+\.\d s$`), ms[0].Lease, "lease countdown")
	shots := []string{loginShot, br.screenshot("1-before-handoff")}

	// During: b joins (its second heartbeat confirms it), a is told to give up half and drains it (it reports
	// the shards DRAINING with work in flight). Those shards' target is b,
	// their current owner still a, and the grid says they are being revoked.
	b.Beat(t)
	b.Beat(t) // confirmed: b now counts for the target
	a.Beat(t)
	a.Beat(t) // reports the two shards DRAINING
	b.Beat(t)
	require.Len(t, a.Draining, 2, "a drains half of its shards")
	tg := targets(t, c)
	during := map[int]want{}
	for s := 0; s < 4; s++ {
		during[s] = want{tg[s], "a"}
		if a.Draining[s] {
			require.Equal(t, "b", tg[s], "shard %d a drains goes to b", s)
		} else {
			require.Equal(t, "a", tg[s], "shard %d stays with a", s)
		}
	}
	rows = waitFor(br, "a revoking two shards for b", gridJS, gridShows(during))
	for _, r := range rows {
		if a.Draining[r.Shard] {
			require.Equal(t, "REVOKING", r.State, "shard %d", r.Shard)
			require.Equal(t, "REVOKING for b", r.StateText, "shard %d: b waits for it", r.Shard)
			require.Contains(t, r.Revoking, "a → b · in flight 1", "shard %d: the harness member reports one message in flight", r.Shard)
		} else {
			require.Equal(t, "OWNED", r.State, "shard %d", r.Shard)
			require.Empty(t, r.Revoking, "shard %d", r.Shard)
		}
	}
	summary, err := eval[string](br, `document.getElementById('shard-summary').textContent`)
	require.NoError(t, err)
	require.Equal(t, "4 shards: 2 OWNED · 2 REVOKING", summary)
	shots = append(shots, fits(t, br, "2-during-handoff"))
	// The filter leaves only the shards on the move.
	br.run(chromedp.Click(chromedp.ID("only-unsettled")))
	waitFor(br, "only the two moving shards", gridJS, func(rows []gridRow) bool {
		return len(rows) == 2 && a.Draining[rows[0].Shard] && a.Draining[rows[1].Shard]
	})
	br.run(chromedp.Click(chromedp.ID("only-unsettled")))
	waitFor(br, "every shard again", gridJS, func(rows []gridRow) bool { return len(rows) == 4 })

	// After: a releases, b takes over. Target and current agree, and they are
	// what each member really reads.
	a.Release()
	a.Beat(t)
	b.Beat(t)
	require.Len(t, a.Shards(), 2)
	require.Len(t, b.Shards(), 2)
	after := map[int]want{}
	for _, m := range []*harness.Member{a, b} {
		for _, s := range m.Shards() {
			after[s] = want{m.ID, m.ID}
		}
	}
	rows = waitFor(br, "b owning the shards a released", gridJS, gridShows(after))
	for _, r := range rows {
		require.Equal(t, "OWNED", r.State, "shard %d", r.Shard)
	}
	ms = waitFor(br, "members a and b at their epochs", membersJS, func(v []memberRow) bool {
		return len(v) == 2 && v[0].Epoch == fmt.Sprint(a.Epoch) && v[1].Epoch == fmt.Sprint(b.Epoch)
	})
	require.Equal(t, "a", ms[0].ID)
	require.Equal(t, "b", ms[1].ID)
	for i, m := range []*harness.Member{a, b} {
		require.Equal(t, "ACTIVE", ms[i].State)
		require.Equal(t, strings.Trim(strings.ReplaceAll(fmt.Sprint(m.Shards()), " ", ", "), "[]"), ms[i].Owns)
	}
	shots = append(shots, fits(t, br, "3-after-handoff"))

	// Offsets and messages of a shard: shown when the coordinator has those
	// routes; otherwise the page says that it has not (older servers).
	if status, _, _ := c.Do("GET", "/coord/v1/streams/orders/groups/workers/offsets", nil, nil); status == 200 {
		waitFor(br, "shard 0's length from the offsets route", `document.querySelector('#shard-grid tr[data-shard="0"] [data-col=length]').textContent`, func(s string) bool { return s == "3" })
	} else {
		waitFor(br, "the note that offsets are missing", `document.getElementById('offsets-note').textContent`, func(s string) bool { return strings.Contains(s, "no per-shard offsets route") })
	}
	br.run(chromedp.Click(chromedp.CSS(`#shard-grid [data-browse="0"]`)))
	if status, _, _ := c.Do("GET", "/coord/v1/streams/orders/shards/0/messages", nil, nil); status == 200 {
		waitFor(br, "shard 0's three messages", `[...document.querySelectorAll('#messages-table tbody tr[data-message]')].map(tr => tr.cells[1].textContent)`,
			func(v []string) bool { return len(v) == 3 && v[0] == "n=1" && v[2] == "n=3" })
	} else {
		waitFor(br, "the note that message browsing is missing", `document.getElementById('messages-note').textContent`, func(s string) bool { return strings.Contains(s, "no message browsing route") })
	}
	shots = append(shots, br.screenshot("3b-shard-messages"))
	br.run(chromedp.Click(chromedp.ID("messages-close")))

	// A fencing: a heartbeats with an epoch the coordinator never gave it.
	req := a.Request()
	req.MemberEpoch = a.Epoch + 10
	held := a.Shards()
	fenced := a.Send(t, req)
	require.Equal(t, protocol.StatusFencedMemberEpoch, fenced.Status)
	waitFor(br, "a's fencing and its cause in the recent list", `[...document.querySelectorAll('#events li[data-member]')].map(li => li.dataset.member + ' ' + li.dataset.state + ': ' + li.textContent)`,
		func(v []string) bool {
			return len(v) == 1 && strings.HasPrefix(v[0], "a FENCED: ") && strings.Contains(v[0], fmt.Sprintf("memberEpoch %d is stale or ahead", req.MemberEpoch))
		})
	// Its lease still counts down: its shards are blocked until it ends.
	waitFor(br, "a FENCED in the members table", membersJS, func(v []memberRow) bool {
		return len(v) == 2 && v[0].State == "FENCED" && regexp.MustCompile(`^\d+\.\d s$`).MatchString(v[0].Lease)
	})
	// a may still read what it held until its lease ends: those shards are blocked.
	waitFor(br, "a's shards blocked", gridJS, func(rows []gridRow) bool {
		if len(rows) != 4 {
			return false
		}
		for _, s := range held {
			if rows[s].Current != "a" || rows[s].State != "BLOCKED" {
				return false
			}
		}
		return true
	})
	shots = append(shots, fits(t, br, "4-fenced"))

	// a drops everything and rejoins at once, as a real member does: it is no
	// longer FENCED, and its fencing stays listed.
	a.Apply(fenced)
	a.Beat(t)
	waitFor(br, "a rejoined", membersJS, func(v []memberRow) bool { return len(v) == 2 && v[0].State != "FENCED" })
	waitFor(br, "a's fencing still listed", `[...document.querySelectorAll('#events li[data-member]')].map(li => li.dataset.member + ' ' + li.dataset.state)`,
		func(v []string) bool { return len(v) == 1 && v[0] == "a FENCED" })

	// Authentication off: no login form, the same group, straight away.
	br.run(chromedp.Navigate(coord.open + "/console"))
	waitFor(br, "the grid without login", gridJS, func(rows []gridRow) bool {
		for _, s := range b.Shards() {
			if len(rows) != 4 || rows[s].Target != "b" || rows[s].Current != "b" {
				return false
			}
		}
		return len(rows) == 4
	})
	loginHidden, err := eval[bool](br, `document.getElementById('login').hidden && document.getElementById('logout').hidden`)
	require.NoError(t, err)
	require.True(t, loginHidden, "no login form and no log-out button when authentication is off")
	shots = append(shots, br.screenshot("5-auth-off"))

	// A resharding: the migration shows in the history at once, with who
	// asked and why.
	n := 6
	var scaled protocol.ScaleResponse
	status, raw, err := c.Do("POST", "/coord/v1/streams/orders/scale", protocol.ScaleRequest{TargetShardCount: &n, RequestedBy: "console-test", Reason: "more shards"}, &scaled)
	require.NoError(t, err)
	require.Equal(t, 202, status, "scale: %s", raw)
	require.Len(t, scaled.Migrations, 1)
	id := scaled.Migrations[0].ReshardingID
	waitFor(br, "the migration in the history", `[...document.querySelectorAll('#migrations tbody tr[data-migration]')].map(tr =>
		[tr.dataset.migration, tr.cells[1].textContent, tr.cells[3].textContent, tr.cells[4].textContent].join(' | '))`,
		func(v []string) bool { return len(v) == 1 && v[0] == id+" | 4 → 6 | console-test | more shards" })
	shots = append(shots, br.screenshot("6-resharding"))

	require.Empty(t, br.scriptErrors(), "the page logged script or security errors")
	t.Logf("console test took %s; screenshots:\n  %s", time.Since(start).Round(time.Millisecond), strings.Join(shots, "\n  "))
}
