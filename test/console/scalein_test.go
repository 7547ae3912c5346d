package console

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// overflowJS reports what sticks out of a window: the page's scroll width
// beyond its client width, and any table wider than its container.
const overflowJS = `(() => {
	const se = document.scrollingElement;
	const wide = [...document.querySelectorAll('table')].filter(t => t.offsetParent !== null && t.scrollWidth > t.parentElement.clientWidth + 1).map(t => t.id);
	return {scrollWidth: se.scrollWidth, clientWidth: se.clientWidth, wide};
})()`

type overflow struct {
	ScrollWidth int      `json:"scrollWidth"`
	ClientWidth int      `json:"clientWidth"`
	Wide        []string `json:"wide"`
}

// fits checks that nothing overflows the window horizontally, with a
// screenshot either way.
func fits(t *testing.T, br *browser, shot string) string {
	t.Helper()
	p := br.screenshot(shot)
	o, err := eval[overflow](br, overflowJS)
	require.NoError(t, err)
	require.Equal(t, windowWidth, o.ClientWidth+scrollbar(t, br), "the window is %d px wide", windowWidth)
	require.LessOrEqual(t, o.ScrollWidth, o.ClientWidth, "%s: the page scrolls sideways at %d px (screenshot %s)", shot, windowWidth, p)
	require.Empty(t, o.Wide, "%s: tables wider than their container (screenshot %s)", shot, p)
	return p
}

// scrollbar is the width of the page's vertical scroll bar (0 in headless
// Chromium's overlay mode).
func scrollbar(t *testing.T, br *browser) int {
	w, err := eval[int](br, `window.innerWidth - document.scrollingElement.clientWidth`)
	require.NoError(t, err)
	return w
}

// The console during a scale-in: 8 → 4 shards, shard 4–7 still hold
// entries nobody read, so they drain and the migration waits. The page
// shows them DRAINING (not OWNED) and the stream's shards as streamctl does
// ("4 (+4 draining)"), lists a stream that has no group, plots lag and
// throughput from its polls, shows the cluster view, and fits a 1,280 px
// window throughout.
func TestConsoleScaleInPlotsAndCluster(t *testing.T) {
	chromium := chromiumPath(t)
	coord := startCoordinator(t)
	br := newBrowser(t, chromium)
	c := harness.NewClient(coord.secured)
	c.User, c.Password = admin, adminPass
	c.CreateStream(t, "orders", 8)
	c.CreateStream(t, "audit-log-with-a-rather-long-stream-name", 2) // no group
	ctx := context.Background()
	rdb := coord.redis.Client()
	for s := 0; s < 8; s++ {
		for i := 0; i < 3+s; i++ {
			require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: fmt.Sprintf("orders:%d", s), Values: []string{"n", fmt.Sprint(i)}}).Err())
		}
	}
	a := harness.NewMember(c, "orders", "workers", "member-with-a-long-id-0123456789abcdef")
	a.Beat(t)
	a.Beat(t)
	require.Len(t, a.Shards(), 8)

	br.run(chromedp.Navigate(coord.open + "/console"))
	waitFor(br, "the stream without a group", `[...document.querySelectorAll('#group-list [data-stream]')].map(d => d.dataset.stream + ':' + d.querySelectorAll('a[data-group]').length + ':' + !!d.querySelector('.no-groups'))`,
		func(v []string) bool {
			return len(v) == 2 && v[0] == "audit-log-with-a-rather-long-stream-name:0:true" && v[1] == "orders:1:false"
		})
	waitFor(br, "eight owned shards", gridJS, func(rows []gridRow) bool {
		if len(rows) != 8 {
			return false
		}
		for _, r := range rows {
			if r.State != "OWNED" {
				return false
			}
		}
		return true
	})

	// Throughput: the group reads a few entries between the page's polls.
	read := func(n int64) {
		for s := 0; s < 4; s++ {
			_, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "workers", Consumer: a.ID, Streams: []string{fmt.Sprintf("orders:%d", s), ">"}, Count: n}).Result()
			if err != redis.Nil {
				require.NoError(t, err)
			}
		}
	}
	points := func(series, plot string) string {
		return fmt.Sprintf(`+((document.querySelector('#%s path[data-series=%q]') || {dataset: {points: 0}}).dataset.points || 0)`, plot, series)
	}
	for i := 0; i < 3; i++ {
		read(1)
		before, err := eval[int](br, points("total", "plot-lag"))
		require.NoError(t, err)
		waitFor(br, "one more lag sample", points("total", "plot-lag"), func(n int) bool { return n > before })
	}
	lagPoints := waitFor(br, "lag plotted", points("total", "plot-lag"), func(n int) bool { return n > 1 })
	waitFor(br, "throughput plotted", points("total", "plot-throughput"), func(n int) bool { return n > 1 })
	shardLines, err := eval[[]string](br, `[...document.querySelectorAll('#plot-lag path[data-series^="shard "]')].map(p => p.dataset.series + '=' + p.dataset.points)`)
	require.NoError(t, err)
	require.Len(t, shardLines, 8, "one lag line per shard: %v", shardLines)
	maxRead, err := eval[float64](br, `Math.max(...RSC.plots.samples("orders\nworkers").slice(1).map((s, k, l) => s.shards[0].read))`)
	require.NoError(t, err)
	require.Equal(t, float64(3), maxRead, "the samples hold shard 0's entries read by the group (three reads of one)")
	shots := []string{fits(t, br, "7-plots-1280")}
	t.Logf("lag plot has %d points", lagPoints)

	// Scale in: routing goes to 4 at once; shards 4–7 drain (their entries are unread).
	n := 4
	var scaled protocol.ScaleResponse
	status, raw, err := c.Do("POST", "/coord/v1/streams/orders/scale", protocol.ScaleRequest{TargetShardCount: &n, RequestedBy: "console-test", Reason: "fewer shards"}, &scaled)
	require.NoError(t, err)
	require.Equal(t, 202, status, "scale: %s", raw)
	var view protocol.StreamView
	require.Eventually(t, func() bool {
		c.MustDo(t, "GET", "/coord/v1/streams/orders", nil, &view, 200)
		return view.ShardCount == 4 && view.ConsumedShardCount == 8
	}, 20*time.Second, 50*time.Millisecond, "routing at 4 while 8 are consumed: %+v", view)
	want := fmt.Sprintf("%d (+%d draining)", view.ShardCount, view.ConsumedShardCount-view.ShardCount) // as streamctl prints it
	require.Equal(t, "4 (+4 draining)", want)
	a.Beat(t)
	rows := waitFor(br, "shards 4–7 draining", gridJS, func(rows []gridRow) bool {
		if len(rows) != 8 {
			return false
		}
		for _, r := range rows {
			if (r.Shard >= 4) != (r.State == "DRAINING") {
				return false
			}
		}
		return true
	})
	for _, r := range rows {
		require.Equal(t, a.ID, r.Current, "shard %d is still read by its owner", r.Shard)
		if r.Shard < 4 {
			require.Equal(t, "OWNED", r.State, "shard %d", r.Shard)
		}
	}
	waitFor(br, "the stream's shards as streamctl shows them", `document.querySelector('#group-list [data-stream="orders"] [data-col=shards]').textContent`,
		func(s string) bool { return s == " · "+want+" shards" })
	summary := waitFor(br, "the group's shard count", `[...document.querySelectorAll('#group-summary div')].map(d => d.textContent)`,
		func(v []string) bool { return len(v) > 0 && contains(v, "Shards"+want) })
	require.Contains(t, summary, "Shards"+want)
	waitFor(br, "the scale-in in the migration table", `[...document.querySelectorAll('#migrations tbody tr[data-migration]')].map(tr => tr.cells[1].textContent)`,
		func(v []string) bool { return contains(v, "8 → 4") })
	shots = append(shots, fits(t, br, "8-scale-in-draining-1280"))

	// The cluster view: this one node, its incarnation, the group it hosts.
	br.run(chromedp.Navigate(coord.open + "/console#/cluster"))
	type nodeRow struct {
		Node        string   `json:"node"`
		Incarnation string   `json:"incarnation"`
		State       string   `json:"state"`
		Started     string   `json:"started"`
		Groups      []string `json:"groups"`
	}
	nodes := waitFor(br, "the node and its group", `[...document.querySelectorAll('#cluster-table tbody tr[data-node]')].map(tr => ({
		node: tr.dataset.node, incarnation: tr.querySelector('[data-col=incarnation]').textContent,
		state: tr.querySelector('[data-col=state] .badge').textContent, started: tr.querySelector('[data-col=started]').textContent,
		groups: [...tr.querySelectorAll('[data-group]')].map(li => li.dataset.group)}))`,
		func(v []nodeRow) bool { return len(v) == 1 && len(v[0].Groups) == 1 && v[0].Started != "—" })
	var cl protocol.ClusterResponse
	c.MustDo(t, "GET", "/coord/v1/monitoring/cluster", nil, &cl, 200)
	require.Len(t, cl.Nodes, 1)
	require.Equal(t, nodeRow{Node: "console-test", Incarnation: cl.Nodes[0].Incarnation, State: "SERVING", Started: nodes[0].Started, Groups: []string{"orders/workers"}}, nodes[0])
	require.NotEmpty(t, cl.Nodes[0].Incarnation)
	shots = append(shots, fits(t, br, "9-cluster-1280"))
	// A hosted group links to its page.
	br.run(chromedp.Click(chromedp.CSS(`#cluster-table [data-group] a`)))
	waitFor(br, "the group page from the cluster view", `!document.getElementById('group').hidden && document.getElementById('cluster-view').hidden && document.getElementById('group-title').textContent`,
		func(s string) bool { return s == "orders / workers" })

	require.Empty(t, br.scriptErrors(), "the page logged script or security errors")
	t.Logf("screenshots:\n  %s", strings.Join(shots, "\n  "))
}

func contains(v []string, s string) bool {
	for _, x := range v {
		if x == s {
			return true
		}
	}
	return false
}
