package cluster

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// rejoinGroups is how many groups heartbeat through a kill and restart.
const rejoinGroups = 20

// rejoinWindow is how long after the restarted node answers again its
// effect is measured (issue 21 point 3).
const rejoinWindow = 5 * time.Second

// TestRejoinMovesEachGroupAtMostOnce is issue 21 point 3: 20 groups with a
// member each heartbeat (round-robin over the nodes) while one node is killed
// with SIGKILL and, once every group is served by the survivors, started
// again. From the restart until rejoinWindow after the cluster has formed
// again, each group is activated at most once (one move back to the
// rejoined node, no alternating activations while the nodes' member lists
// converge), and of the heartbeats sent once the restarted process answers,
// at least 95 % are answered with something other than RETRY (attempts
// without an answer count against it). It logs "rejoin-activations=… rejoin-ok=…".
func TestRejoinMovesEachGroupAtMostOnce(t *testing.T) {
	w := startWorld(t, 2)
	g := startGroupFleet(w, rejoinGroups)
	waitUntil(t, 40*time.Second, "every group's member answered OK", func() bool { return g.allOKSince(time.Time{}) })

	victim := 1
	w.cl.Nodes[victim].Kill()
	killedAt := time.Now()
	waitUntil(t, 30*time.Second, "every group served by the survivors", func() bool { return g.allOKSince(killedAt) })
	t.Logf("killed n%d at %s; every group served again after %s", victim+1, clock(killedAt), time.Since(killedAt).Round(time.Millisecond))
	time.Sleep(lease) // steady heartbeats on the survivors

	restartAt := time.Now()
	w.cl.Nodes[victim].Restart()
	answeringAt := time.Now() // heartbeats sent to it before failed to connect: a process starting, not the rejoin
	if err := w.cl.WaitFormed(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	formedAt := time.Now()
	end := formedAt.Add(rejoinWindow)
	time.Sleep(time.Until(end))
	g.Stop()

	acts := w.activationsSince(restartAt)
	var moved []string
	total := 0
	for _, grp := range g.names {
		total += len(acts[grp])
		if len(acts[grp]) > 1 {
			moved = append(moved, fmt.Sprintf("%s: %s", grp, strings.Join(acts[grp], ", ")))
		}
	}
	ok, retry, failed, why := g.count(answeringAt, end)
	sent := ok + retry + failed
	okShare := 0.0
	if sent > 0 {
		okShare = float64(ok) / float64(sent)
	}
	t.Logf("rejoin-activations=%d groups=%d groups-activated-more-than-once=%d rejoin-ok=%.1f%% (ok=%d retry=%d failed=%d) restart-to-answering=%s restart-to-formed=%s window=%s",
		total, len(g.names), len(moved), 100*okShare, ok, retry, failed, answeringAt.Sub(restartAt).Round(time.Millisecond),
		formedAt.Sub(restartAt).Round(time.Millisecond), end.Sub(answeringAt).Round(time.Millisecond))
	for _, m := range moved {
		t.Errorf("activated more than once after the restart: %s", m)
	}
	if retry+failed > 0 {
		t.Logf("RETRY answers and attempts without an answer, per node: %v", why)
	}
	if okShare < 0.95 {
		t.Errorf("only %.1f%% of heartbeats after the restart answered OK (want ≥ 95%%): %d RETRY, %d without answer", 100*okShare, retry, failed)
	}
}

// groupFleet is one member per group, heartbeating steadily through every
// node in turn (as behind a round-robin load balancer: the restarted node
// gets requests as soon as it answers); member i starts at node i mod 3.
type groupFleet struct {
	w     *world
	names []string
	stop  chan struct{}
	wg    sync.WaitGroup

	mu  sync.Mutex
	ex  []harness.Exchange
	oks map[string]time.Time // group → receipt of its last OK-like answer
}

func startGroupFleet(w *world, n int) *groupFleet {
	g := &groupFleet{w: w, stop: make(chan struct{}), oks: map[string]time.Time{}}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("g%02d", i)
		g.names = append(g.names, name)
		m := harness.NewFailoverMember(w.cl.URLs(), i, attemptLimit, prefix, name, "m-"+name)
		m.Observe = g.record
		g.wg.Add(1)
		go g.loop(m)
	}
	w.t.Cleanup(g.Stop)
	return g
}

func (g *groupFleet) record(e harness.Exchange) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ex = append(g.ex, e)
	if e.Answered() && okLike(e.Response.Status) {
		g.oks[strings.TrimPrefix(e.Member, "m-")] = e.RecvAt
	}
}

func (g *groupFleet) loop(m *harness.FailoverMember) {
	defer g.wg.Done()
	for {
		m.Release()
		_, _ = m.Beat(beatWithin)
		m.SwitchTo(m.Current() + 1)
		select {
		case <-g.stop:
			return
		case <-time.After(heartbeat):
		}
	}
}

// Stop ends every member's loop and waits for them.
func (g *groupFleet) Stop() {
	select {
	case <-g.stop:
	default:
		close(g.stop)
	}
	g.wg.Wait()
}

// allOKSince reports whether every group had an OK-like answer after at.
func (g *groupFleet) allOKSince(at time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, n := range g.names {
		if !g.oks[n].After(at) {
			return false
		}
	}
	return true
}

// count sorts the exchanges sent between from and to: OK-like answers,
// RETRY answers, and attempts without an answer (why: RETRY answers and the
// reasons of attempts without an answer, counted per node).
func (g *groupFleet) count(from, to time.Time) (ok, retry, failed int, why map[string]int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	why = map[string]int{}
	for _, e := range g.ex {
		if e.SentAt.Before(from) || e.SentAt.After(to) {
			continue
		}
		switch {
		case !e.Answered():
			failed++
			reason := fmt.Sprintf("HTTP %d", e.HTTPStatus)
			if e.Err != nil {
				reason = e.Err.Error()
				if i := strings.LastIndex(reason, ": "); i >= 0 {
					reason = reason[i+2:]
				}
			}
			why[g.w.nodeName(e.URL)+" "+reason]++
		case e.Response.Status == protocol.StatusRetry:
			retry++
			why[g.w.nodeName(e.URL)+" RETRY "+retryCause(e.Response.Message)]++
		default:
			ok++
		}
	}
	return ok, retry, failed, why
}

// retryCause is a RETRY answer's message without what varies per group
// (names, durations), so that equal causes count together.
func retryCause(msg string) string {
	if i := strings.IndexAny(msg, ":("); i > 0 {
		msg = msg[:i]
	}
	if len(msg) > 80 {
		msg = msg[:80]
	}
	return "(" + msg + ")"
}

// nodeName is "nK" for a node's base URL.
func (w *world) nodeName(url string) string {
	for i, n := range w.cl.Nodes {
		if n.URL() == url {
			return fmt.Sprintf("n%d", i+1)
		}
	}
	return url
}

// activationsSince returns, per consumer group of the stream, every "group
// activated" line logged at or after from by any node, as "nK@time
// activation N", in time order.
func (w *world) activationsSince(from time.Time) map[string][]string {
	type act struct {
		at   time.Time
		text string
	}
	byGroup := map[string][]act{}
	for i, n := range w.cl.Nodes {
		for _, line := range strings.Split(n.Logs(), "\n") {
			if !strings.Contains(line, `msg="group activated"`) {
				continue
			}
			at, ok := logTime(line)
			if !ok || at.Before(from) {
				continue
			}
			grp := logField(line, "group")
			_, name, _ := strings.Cut(grp, "/")
			byGroup[name] = append(byGroup[name], act{at, fmt.Sprintf("n%d@%s activation %s", i+1, clock(at), logField(line, "activation"))})
		}
	}
	out := map[string][]string{}
	for grp, list := range byGroup {
		sort.Slice(list, func(a, b int) bool { return list[a].at.Before(list[b].at) })
		for _, a := range list {
			out[grp] = append(out[grp], a.text)
		}
	}
	return out
}

// logTime is the time stamp of a slog text line ("time=…" first).
func logTime(line string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(line, "time=")
	if !ok {
		return time.Time{}, false
	}
	stamp, _, _ := strings.Cut(rest, " ")
	at, err := time.Parse(time.RFC3339Nano, stamp)
	return at, err == nil
}

// logField is the value of key=value in a slog text line ("" if absent).
func logField(line, key string) string {
	i := strings.Index(line, " "+key+"=")
	if i < 0 {
		return ""
	}
	v := line[i+len(key)+2:]
	if strings.HasPrefix(v, `"`) {
		end := strings.Index(v[1:], `"`)
		if end < 0 {
			return v[1:]
		}
		return v[1 : end+1]
	}
	v, _, _ = strings.Cut(v, " ")
	return v
}
