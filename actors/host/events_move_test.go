package host

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

// A fencing and an expiry stay listed after the group moves to another
// node: they are stored with the writes that record them (on a real Redis),
// and the next activation, on another node, reads them back. Heartbeats that
// change nothing write nothing, also not the events.
func TestRecentEventsSurviveAGroupMove(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	rules := quickRules
	rules.LeaseTTL = 2 * time.Second // b expires; a heartbeats by hand meanwhile
	node := func(id string) *Host {
		store, err := redisstore.New(srv.Client(), redisstore.Options{})
		require.NoError(t, err)
		h := New(Options{Store: store, Provisioner: redisstore.NewProvisioner(srv.Client()), NodeID: id, Rules: rules, TrustEmptyStore: true})
		require.NoError(t, h.Start(ctx))
		return h
	}
	first := node("n1")
	t.Cleanup(first.Stop)
	four := 4
	_, err := first.Service().CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &four, RequestedBy: "test"})
	require.NoError(t, err)

	a := beat(t, first, "a", 0, nil)
	a = beat(t, first, "a", a.MemberEpoch, a.Assignment.AssignedShards)
	require.Equal(t, protocol.StatusOK, a.Status)
	fenced := beat(t, first, "a", a.MemberEpoch+7, a.Assignment.AssignedShards)
	require.Equal(t, protocol.StatusFencedMemberEpoch, fenced.Status)
	a = beat(t, first, "a", 0, nil) // rejoins owning nothing, as the SDK does
	b := beat(t, first, "b", 0, nil)
	require.Equal(t, protocol.StatusOK, b.Status)
	var before []protocol.MemberEvent
	require.Eventually(t, func() bool {
		a = beat(t, first, "a", a.MemberEpoch, a.Assignment.AssignedShards)
		m, err := first.Service().Members(ctx, "orders", "workers")
		require.NoError(t, err)
		before = m.RecentEvents
		return len(before) == 2 && before[0].MemberID == "b" && before[0].State == "EXPIRED"
	}, 10*time.Second, 100*time.Millisecond, "b's lease runs out while a heartbeats")
	require.Equal(t, "a", before[1].MemberID)
	require.Equal(t, "FENCED", before[1].State)
	require.Contains(t, before[1].Cause, "stale or ahead")
	// a takes b's shards over first (durable changes); only then is it steady.
	require.Eventually(t, func() bool {
		a = beat(t, first, "a", a.MemberEpoch, a.Assignment.AssignedShards)
		return len(a.Assignment.AssignedShards) == 4 && len(a.Assignment.PendingShards) == 0
	}, 10*time.Second, 50*time.Millisecond, "a holds every shard after b's expiry")
	a = beat(t, first, "a", a.MemberEpoch, a.Assignment.AssignedShards) // reports what it holds

	// Steady heartbeats do not write the events again.
	rev := storedRevision(t, srv)
	for i := 0; i < 3; i++ {
		a = beat(t, first, "a", a.MemberEpoch, a.Assignment.AssignedShards)
		require.Equal(t, protocol.StatusOK, a.Status)
	}
	require.Equal(t, rev, storedRevision(t, srv), "steady heartbeats wrote the group")

	// The node stops; another one activates the group: the list is the same.
	first.Stop()
	second := node("n2")
	t.Cleanup(second.Stop)
	require.Eventually(t, func() bool {
		r := beat(t, second, "a", a.MemberEpoch, a.Assignment.AssignedShards)
		return r.Status == protocol.StatusOK
	}, 10*time.Second, 50*time.Millisecond, "a is served by the second node")
	_, hosted := second.router.Active(workers)
	require.True(t, hosted, "the second node hosts the group now")
	m, err := second.Service().Members(ctx, "orders", "workers")
	require.NoError(t, err)
	require.Equal(t, before, m.RecentEvents)
}

// storedRevision is the group's stored revision (bumped by every write).
func storedRevision(t *testing.T, srv *redistest.Server) int64 {
	t.Helper()
	store, err := redisstore.New(srv.Client(), redisstore.Options{})
	require.NoError(t, err)
	snap, err := store.LoadGroup(context.Background(), workers)
	require.NoError(t, err)
	return snap.Revision
}
