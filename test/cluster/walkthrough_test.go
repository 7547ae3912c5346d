package cluster

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// TestKIP848WalkthroughAcrossNodes runs the KIP-848 walkthrough with each
// member talking to a different node: a joins alone and gets everything; b
// joins, waits for pending shards while a is told to revoke them, and gets
// them only once a released them; c joins and takes only what balance
// needs; c leaves and only its shards move. Any node answers for the group,
// so the outcome is the one a single node gives.
func TestKIP848WalkthroughAcrossNodes(t *testing.T) {
	w := startWorld(t, 6)
	a, b, c := w.member("a", 0), w.member("b", 1), w.member("c", 2)

	beatUntil(t, w, "a owns every shard", func() bool { return len(a.Shards()) == 6 }, a)
	w.beat(a) // a confirmed: a member counts once its second heartbeat arrived
	epochA := a.Epoch
	require.Positive(t, epochA)

	// b joins through another node: it reads nothing a still reads.
	w.beat(b)
	disjoint(t, a, b, c)
	var pending []int
	for i := 0; i < 10 && len(pending) == 0; i++ {
		r := w.beat(b)
		pending = protocol.Indexes(r.Assignment.PendingShards)
		require.Empty(t, b.Shards(), "b must not read anything a still holds")
	}
	require.Len(t, pending, 3, "b waits for half the shards")

	r := w.beat(a)
	require.Equal(t, protocol.StatusOK, r.Status)
	require.Len(t, r.Assignment.AssignedShards, 3, "a is told to revoke three shards")
	require.Equal(t, pending, keys(a.Draining), "a drains exactly b's pending shards")
	require.Equal(t, epochA, a.Epoch, "a's epoch stays until the revocation is done")

	w.beat(b)
	require.Empty(t, b.Shards(), "revoke before assign: b waits while a drains")
	disjoint(t, a, b, c)

	a.Release()
	w.beat(a)
	require.Greater(t, a.Epoch, epochA, "a advances to the assignment epoch once released")
	w.beat(b)
	require.Equal(t, pending, b.Shards(), "b gets the released shards")
	disjoint(t, a, b, c)

	// c joins through the third node: each keeps two of its own shards.
	beforeA, beforeB := a.Shards(), b.Shards()
	beatUntil(t, w, "three members with two shards each", func() bool {
		return len(a.Shards()) == 2 && len(b.Shards()) == 2 && len(c.Shards()) == 2 && len(a.Draining)+len(b.Draining) == 0
	}, a, b, c)
	require.Subset(t, beforeA, a.Shards(), "a keeps its own shards (stickiness)")
	require.Subset(t, beforeB, b.Shards(), "b keeps its own shards (stickiness)")

	// c leaves: only its shards move.
	beforeA, beforeB = a.Shards(), b.Shards()
	r, err := c.Leave(beatWithin)
	require.NoError(t, err)
	require.Equal(t, protocol.StatusOK, r.Status)
	beatUntil(t, w, "a and b own every shard again", func() bool { return len(a.Shards())+len(b.Shards()) == 6 }, a, b)
	require.Subset(t, a.Shards(), beforeA, "a keeps its shards through c's leave")
	require.Subset(t, b.Shards(), beforeB, "b keeps its shards through c's leave")
	beatUntil(t, w, "both members confirmed", func() bool { return a.Last.MemberEpoch == a.Epoch && b.Last.MemberEpoch == b.Epoch }, a, b)

	// Every node gives the same answer about the group.
	for i, n := range w.cl.Nodes {
		cl := harness.NewClient(n.URL())
		cl.HTTP = &http.Client{Timeout: 5 * time.Second}
		var g protocol.GroupResponse
		waitUntil(t, 10*time.Second, "a STABLE view from node "+n.URL(), func() bool {
			st, _, err := cl.Do("GET", "/coord/v1/monitoring/streams/"+prefix+"/groups/"+groupName, nil, &g)
			return err == nil && st == 200 && g.State == protocol.GroupStable
		})
		require.Equal(t, map[string]int{"a": len(a.Shards()), "b": len(b.Shards())}, g.CurrentAssignmentSummary, "node %d", i+1)
	}
	w.checkOracle(time.Now())
	require.Empty(t, Refusals(w.oracle.Exchanges(), time.Time{}), "nobody is fenced in a walkthrough")
}

// beatUntil heartbeats ms round-robin, releasing revocations at once, until
// cond holds (at most 40 rounds).
func beatUntil(t *testing.T, w *world, what string, cond func() bool, ms ...*harness.FailoverMember) {
	t.Helper()
	for round := 0; round < 40; round++ {
		if cond() {
			return
		}
		for _, m := range ms {
			m.Release()
			w.beat(m)
			disjoint(t, ms...)
		}
	}
	if !cond() {
		t.Fatalf("after 40 rounds of heartbeats: not %s", what)
	}
}

// disjoint fails the test if two members read or drain one shard now.
func disjoint(t *testing.T, ms ...*harness.FailoverMember) {
	t.Helper()
	owner := map[int]string{}
	for _, m := range ms {
		for _, s := range append(m.Shards(), keys(m.Draining)...) {
			if o, ok := owner[s]; ok {
				t.Fatalf("shard %d read by %s and %s at once", s, o, m.ID)
			}
			owner[s] = m.ID
		}
	}
}
