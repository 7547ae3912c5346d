package console

import (
	"net"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/api/console"
)

// Names that are awkward in a URL and dangerous in HTML: the page must
// encode them in paths and show them as text.
const (
	oddStream = "orders:v2"
	oddGroup  = "svc <b>x</b>"
	oddMember = `m<img src=x onerror="window.__xss=1">`
)

// stubAPI serves the console and fixed monitoring answers for one group in
// the middle of a scale-in (3 → 2 shards: shard 2 still held while it
// drains), with no offsets route. It fails the test if the page asks for
// another group than the one it was given (path encoding).
func stubAPI(t *testing.T) string {
	t.Helper()
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get(console.Path, console.Handler)
	app.Get(console.Path+"/*", console.Handler)
	migration := fiber.Map{"reshardingId": "rs-2", "streamPrefix": oddStream, "fromShardCount": 3, "toShardCount": 2, "state": "DRAINING",
		"createdAt": "2026-12-01T10:00:00Z", "updatedAt": "2026-12-01T10:05:00Z", "requestedBy": "ops", "reason": "<script>scale in</script>",
		"waiting": "shard 2: consumer group svc still has 1 pending",
		"shards":  []fiber.Map{{"shardIndex": 2, "streamKey": oddStream + ":2", "change": "REMOVE", "state": "DRAINING", "blockedBy": []fiber.Map{{"consumerGroup": oddGroup, "pending": 1, "lag": 0}}}},
		"history": []fiber.Map{{"state": "PREPARING", "at": "2026-12-01T10:00:00Z", "node": "n1"}, {"state": "DRAINING", "at": "2026-12-01T10:05:00Z", "node": "n1", "note": "routing now 2 shards"}}}
	group := fiber.Map{"streamPrefix": oddStream, "consumerGroup": oddGroup, "state": "RECONCILING", "groupEpoch": 7, "assignmentEpoch": 7,
		"metadataVersion": 4, "shardCount": 2, "activeMigration": migration,
		"targetAssignmentSummary": fiber.Map{oddMember: 2}, "currentAssignmentSummary": fiber.Map{oddMember: 3},
		"rebalancing": "paused", "rebalancingPause": fiber.Map{"requestedBy": "<b>ops</b>", "reason": "deploy <i>x</i>", "since": "2026-12-01T10:00:00Z"}}
	shards := func(ix ...int) []fiber.Map {
		out := []fiber.Map{}
		for _, i := range ix {
			out = append(out, fiber.Map{"shardIndex": i})
		}
		return out
	}
	const mon = "/coord/v1/monitoring/streams/:p/groups/:g"
	check := func(c *fiber.Ctx) error {
		p, err := url.PathUnescape(c.Params("p"))
		if err == nil && p == oddStream {
			var g string
			if g, err = url.PathUnescape(c.Params("g")); err == nil && g == oddGroup {
				return c.Next()
			}
		}
		t.Errorf("the page asked for %s (path params %q, %q)", c.OriginalURL(), c.Params("p"), c.Params("g"))
		return c.SendStatus(400)
	}
	app.Get("/coord/v1/monitoring/health", func(c *fiber.Ctx) error {
		return c.JSON(fiber.Map{"status": "UP", "coordinatorId": "stub", "redis": "UP", "loop": "UP"})
	})
	app.Get("/coord/v1/monitoring/groups", func(c *fiber.Ctx) error { return c.JSON(fiber.Map{"groups": []fiber.Map{group}}) })
	app.Get(mon, check, func(c *fiber.Ctx) error { return c.JSON(group) })
	app.Get(mon+"/members", check, func(c *fiber.Ctx) error {
		return c.JSON(fiber.Map{
			"members": []fiber.Map{{"memberId": oddMember, "memberName": "<i>w</i>", "state": "ACTIVE", "memberEpoch": 7,
				"runtimeConsumerCapacity": fiber.Map{"runtimeMaxConcurrency": 8, "availableConcurrency": 5},
				"currentAssignment":       shards(0, 1, 2), "targetAssignment": shards(0, 1), "pending": shards(), "revoking": shards(),
				"leaseExpiresAt": "2999-01-01T00:00:00Z", "stateSince": "2026-12-01T09:00:00Z", "lastHeartbeatAt": "2026-12-01T10:05:00Z", "transport": "redis"}},
			"recentEvents": []fiber.Map{{"memberId": "gone<svg onload=window.__xss=2>", "state": "EXPIRED", "memberEpoch": 3,
				"at": "2026-12-01T09:30:00Z", "cause": "lease expired: no heartbeat within the member lease TTL"}},
		})
	})
	app.Get(mon+"/assignments", check, func(c *fiber.Ctx) error {
		return c.JSON(fiber.Map{"targetAssignment": fiber.Map{oddMember: shards(0, 1)}, "currentAssignments": fiber.Map{oddMember: shards(0, 1, 2)},
			"revokeProgress": fiber.Map{}, "revokeDetails": []fiber.Map{}, "invariantViolations": []string{}})
	})
	app.Get(mon+"/consumption", check, func(c *fiber.Ctx) error {
		return c.JSON(fiber.Map{"progress": []fiber.Map{{"memberId": oddMember, "shard": fiber.Map{"shardIndex": 2}, "pendingCount": 1}}})
	})
	app.Get(mon+"/migrations", check, func(c *fiber.Ctx) error {
		old := fiber.Map{"reshardingId": "rs-1", "streamPrefix": oddStream, "fromShardCount": 2, "toShardCount": 3, "state": "DEPRECATED",
			"createdAt": "2026-11-30T10:00:00Z", "updatedAt": "2026-11-30T10:01:00Z", "requestedBy": "ops"}
		return c.JSON(fiber.Map{"migrations": []fiber.Map{old, migration}, "activeReshardingId": "rs-2"})
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
}

// The page shows a scale-in in progress (the removed shard still held and
// draining, the active migration first and in bold, its history and its
// blocked shard), encodes odd names in its request paths, and shows names
// and texts with markup as text: nothing from the data runs or becomes an
// element.
func TestConsoleRendersMigrationsAndEscapes(t *testing.T) {
	chromium := chromiumPath(t)
	base := stubAPI(t)
	br := newBrowser(t, chromium)
	br.run(chromedp.Navigate(base + "/console"))

	waitFor(br, "the group title", `document.getElementById('group-title').textContent`, func(s string) bool { return s == oddStream+" / "+oddGroup })
	rows := waitFor(br, "three shards, the third draining", gridJS, func(r []gridRow) bool { return len(r) == 3 })
	for i, r := range rows {
		require.Equal(t, oddMember, r.Current, "shard %d", i)
		if i < 2 {
			require.Equal(t, oddMember, r.Target)
			require.Equal(t, "OWNED", r.State)
		} else {
			require.Equal(t, "—", r.Target, "a removed shard has no target owner")
			require.Equal(t, "DRAINING", r.State)
		}
	}
	pending, err := eval[string](br, `document.querySelector('#shard-grid tr[data-shard="2"] [data-col=pending]').textContent`)
	require.NoError(t, err)
	require.Equal(t, "1", pending, "pending entries from the member's report when there is no offsets route")

	type migRow struct {
		ID      string `json:"id"`
		Bold    bool   `json:"bold"`
		Text    string `json:"text"`
		Details string `json:"details"`
	}
	migs := waitFor(br, "two migrations", `[...document.querySelectorAll('#migrations tbody tr[data-migration]')].map(tr => ({
		id: tr.dataset.migration, bold: !!tr.querySelector('strong'), text: [...tr.cells].slice(1).map(c => c.textContent).join(' | '),
		details: (tr.querySelector('details') || {textContent: ''}).textContent}))`, func(v []migRow) bool { return len(v) == 2 })
	require.Equal(t, "rs-2", migs[0].ID, "newest first")
	require.True(t, migs[0].Bold, "the active migration stands out")
	require.Contains(t, migs[0].Text, "3 → 2 | DRAINING | ops | <script>scale in</script> | shard 2: consumer group svc still has 1 pending")
	require.Contains(t, migs[0].Details, "DRAINING at 2026-12-01T10:05:00Z on n1: routing now 2 shards")
	require.Contains(t, migs[0].Details, "REMOVE shard 2 (orders:v2:2): DRAINING · waiting for svc <b>x</b> pending 1 lag 0")
	require.Equal(t, "rs-1", migs[1].ID)
	require.False(t, migs[1].Bold)
	require.Contains(t, migs[1].Text, "2 → 3 | completed (DEPRECATED)", "the successful end state reads as completed")

	summary, err := eval[string](br, `document.getElementById('group-summary').textContent`)
	require.NoError(t, err)
	require.Contains(t, summary, "rs-2 (3 → 2, DRAINING)")
	require.Contains(t, summary, "Rebalancingpaused by <b>ops</b> 2026-12-01 10:00:00Z: deploy <i>x</i>", "a paused group says who, since when and why, as text")
	require.Contains(t, summary, "expired or fenced members\u2019 shards are still reassigned")
	events := waitFor(br, "the expiry", `[...document.querySelectorAll('#events li[data-member]')].map(li => li.textContent)`, func(v []string) bool { return len(v) == 1 })
	require.Contains(t, events[0], "gone<svg onload=window.__xss=2>")
	require.Contains(t, events[0], "lease expired")
	member, err := eval[[]string](br, `[...document.querySelectorAll('#members tbody tr[data-member] td')].map(td => td.textContent)`)
	require.NoError(t, err)
	require.Equal(t, oddMember, member[0])
	require.Equal(t, "<i>w</i>", member[1])
	require.Regexp(t, `^\d+ d$`, member[4], "a lease days away is shown in days")
	require.Equal(t, "5 / 8", member[5])
	require.Contains(t, member[10], "via redis", "the transport of the member's last heartbeat")

	injected, err := eval[bool](br, `window.__xss !== undefined || document.querySelectorAll('img, script:not([src]), b, i').length > 0 ||
		[...document.querySelectorAll('svg')].some(s => !s.closest('#plots'))`) // the plots are the page's own SVG
	require.NoError(t, err)
	require.False(t, injected, "data became markup")
	note, err := eval[string](br, `document.getElementById('offsets-note').textContent`)
	require.NoError(t, err)
	require.Contains(t, note, "no per-shard offsets route")
	fits(t, br, "6-migrations-and-odd-names") // the long texts wrap or are cut with a tooltip at 1,280 px
	require.Empty(t, br.scriptErrors(), "the page logged script or security errors")
}
