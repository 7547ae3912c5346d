package cluster

import (
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// TestKilledHostingNode is the node failure of issue 11 point 6: the node
// hosting the group is killed with SIGKILL while members heartbeat; members
// fail over to the survivors and keep their shards (nobody is fenced, no
// epoch changes). It measures the time from the kill to the first OK
// heartbeat for the group (sent after the kill) and to every member's, and
// logs them as "failover-served-after=… all-members-served-after=…".
func TestKilledHostingNode(t *testing.T) {
	w := startWorld(t, 6)
	f := startFleet(w, 4)
	f.WaitSettled(t, 30*time.Second, "every shard owned by a settled member")
	waitServedAfter(t, w, time.Now(), len(f.ms), "the settled group")
	before := f.Snapshots()

	host, epoch, err := w.hostingNode()
	if err != nil {
		t.Fatal(err)
	}
	killedAt := time.Now()
	w.cl.Nodes[host].Kill()
	t.Logf("killed n%d (activation %d)", host+1, epoch)

	var first, all time.Duration
	waitUntil(t, 30*time.Second, "an OK heartbeat of every member after the kill", func() bool {
		first, all = servedAfter(w.oracle.Exchanges(), killedAt, len(f.ms))
		return all > 0
	})
	t.Logf("failover-served-after=%s all-members-served-after=%s killed=n%d lease=%s heartbeat=%s",
		first.Round(time.Millisecond), all.Round(time.Millisecond), host+1, lease, heartbeat)

	time.Sleep(lease) // steady heartbeats on the survivors
	f.Stop()
	w.checkOracle(time.Now())
	for _, r := range Refusals(w.oracle.Exchanges(), killedAt) {
		t.Errorf("fenced by the failover: %s", r)
	}
	after := f.Snapshots()
	for id, b := range before {
		a := after[id]
		require.Equal(t, protocol.StatusOK, a.Status, "%s's last answer", id)
		require.Equal(t, b.Epoch, a.Epoch, "%s's epoch is unchanged by the failover", id)
		require.Equal(t, b.Owned, a.Owned, "%s keeps its shards through the failover", id)
	}
}

// waitServedAfter waits until each of n members was answered OK to a heartbeat sent after
// at: a steady round, seen rather than assumed from elapsed time.
func waitServedAfter(t *testing.T, w *world, at time.Time, n int, what string) {
	t.Helper()
	waitUntil(t, 10*time.Second, "an OK heartbeat of every member after "+what, func() bool {
		_, all := servedAfter(w.oracle.Exchanges(), at, n)
		return all > 0
	})
}

// servedAfter returns how long after at the first OK answer to a heartbeat
// sent after at arrived, and how long until every one of n members had one
// (0 if not all have yet).
func servedAfter(ex []harness.Exchange, at time.Time, n int) (first, all time.Duration) {
	firstOK := map[string]time.Time{}
	for _, e := range ex {
		if !e.Answered() || e.Response.Status != protocol.StatusOK || !e.SentAt.After(at) {
			continue
		}
		if t, ok := firstOK[e.Member]; !ok || e.RecvAt.Before(t) {
			firstOK[e.Member] = e.RecvAt
		}
	}
	var times []time.Time
	for _, t := range firstOK {
		times = append(times, t)
	}
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	if len(times) > 0 {
		first = times[0].Sub(at)
	}
	if len(times) >= n {
		all = times[len(times)-1].Sub(at)
	}
	return first, all
}
