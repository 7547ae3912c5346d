package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/test/harness"
	"github.com/redisstream/coordinator/test/recorder"
)

// Two real member processes forced onto one member id: the second is refused with
// MEMBER_ID_IN_USE and reads nothing while the first lives; it is told why (its log and its
// events), the coordinator logs the conflict once, counts it, and never takes it for store
// loss; once the first leaves, the second takes over. At no moment do both read a shard.
func TestTwoProcessesOnOneMemberID(t *testing.T) {
	e := start(t, nil)
	e.c.CreateStream(t, "orders", 4)
	harness.StartProducer(t, harness.ProducerOptions{CoordinatorURLs: []string{e.coord.URL()}, RedisAddr: e.redis.Addr(),
		Stream: "orders", Group: "workers", Rate: 200})
	const id = "vm-m0"
	opts := harness.MemberOptions{ID: id, CoordinatorURLs: []string{e.coord.URL()}, RedisAddr: e.redis.Addr()}
	recA, recB := recorder.New(), recorder.New() // one per process: both report the same member id
	a := harness.StartMember(t, recA, opts)
	waitFor(t, 20*time.Second, "the first process handles entries of every shard", func() bool {
		return len(handledShards(recA)) == 4
	})

	b := harness.StartMember(t, recB, opts)
	waitFor(t, 20*time.Second, "the second process is refused three times", func() bool {
		return count(recB, "event", "MEMBER_ID_IN_USE") >= 3
	})
	require.Contains(t, b.Logs(), "refuses this member id", "the duplicate's log says why it reads nothing")
	require.Equal(t, 1, strings.Count(b.Logs(), "level=ERROR"), "the duplicate logs one ERROR, not one per retry:\n%s", b.Logs())
	require.Zero(t, count(recB, "handled", ""), "the duplicate read nothing")
	require.Zero(t, count(recB, "event", "SHARD_STARTED"), "the duplicate started no shard")
	ms := e.members(t)
	require.Len(t, ms, 1)
	require.Equal(t, "ACTIVE", ms[id].State)
	require.Len(t, ms[id].CurrentAssignment, 4, "the first process keeps every shard")
	checkFencedTo(t, e, id)
	logs := e.coord.Logs()
	require.Equal(t, 1, strings.Count(logs, "two processes use one member id"), "logged once per process pair")
	require.Equal(t, 1.0, metric(t, e, "rsc_member_id_conflicts_total"))
	require.Zero(t, metric(t, e, "rsc_state_lost_total"), "a duplicate is not store loss")

	// The first leaves; the second takes over.
	require.True(t, a.Leave(15*time.Second), "first process leaves gracefully")
	firstDone := time.Now().UnixNano()
	waitFor(t, 20*time.Second, "the second process takes every shard over", func() bool {
		return len(handledShards(recB)) == 4
	})
	lastA := lastAt(recA)
	firstB := firstAt(recB)
	require.Less(t, lastA, firstB, "the second process read nothing before the first had stopped")
	require.Less(t, firstB, time.Now().UnixNano())
	t.Logf("first process stopped reading at %v, exited by %v; second started reading %v after the last read of the first",
		time.Unix(0, lastA).Format(time.RFC3339Nano), time.Unix(0, firstDone).Format(time.RFC3339Nano), time.Duration(firstB-lastA))
	require.Zero(t, metric(t, e, "rsc_state_lost_total"), "the first one's leave did not look like store loss to the second")
	checkFencedTo(t, e, id)
}

// handledShards is the set of shards a process handled entries of.
func handledShards(r *recorder.Recorder) map[int]bool {
	out := map[int]bool{}
	for _, l := range r.Lines() {
		if l.Kind == "handled" {
			out[l.Shard] = true
		}
	}
	return out
}

// count counts lines of kind (and event type, for "event").
func count(r *recorder.Recorder, kind, event string) int {
	n := 0
	for _, l := range r.Lines() {
		if l.Kind == kind && (event == "" || l.Event == event) {
			n++
		}
	}
	return n
}

// lastAt and firstAt bound when a process read: its handled lines and its shard starts and
// releases.
func lastAt(r *recorder.Recorder) int64 {
	var last int64
	for _, l := range r.Lines() {
		if reading(l) && l.At > last {
			last = l.At
		}
	}
	return last
}

func firstAt(r *recorder.Recorder) int64 {
	var first int64
	for _, l := range r.Lines() {
		if reading(l) && (first == 0 || l.At < first) {
			first = l.At
		}
	}
	return first
}

func reading(l recorder.Line) bool {
	return l.Kind == "handled" || l.Kind == "acked" || (l.Kind == "event" && (l.Event == "SHARD_STARTED" || l.Event == "SHARD_RELEASED"))
}

// checkFencedTo fails unless every shard fence of orders/workers names owner.
func checkFencedTo(t *testing.T, e *env, owner string) {
	t.Helper()
	for s, f := range fences(t, e, 4) {
		require.Equal(t, owner, f.owner, "fence of shard %d", s)
	}
}

// metric reads one unlabelled series from /metrics.
func metric(t *testing.T, e *env, name string) float64 {
	t.Helper()
	return e.c.Metric(t, name)
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting until %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
