package host

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

func newDataSetHost(t *testing.T, mem *memstore.Store, prov *memstore.Provisioner) *Host {
	t.Helper()
	h := New(Options{Store: mem, Provisioner: prov, NodeID: "n", Rules: quickRules, ClusterView: testCluster("n")})
	t.Cleanup(h.Stop)
	require.NoError(t, h.Start(context.Background()))
	return h
}

// waitGranted heartbeats as id every interval until it is granted a shard, and returns how
// many heartbeats that took (the first included) and how long from the first.
func waitGranted(t *testing.T, h *Host, id string) (int, time.Duration, protocol.HeartbeatResponse) {
	t.Helper()
	first := time.Now()
	var epoch int64
	var owned []protocol.ShardID
	beats := 0
	for deadline := first.Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(quickRules.HeartbeatInterval) {
		r := beat(t, h, id, epoch, owned)
		beats++
		require.Equal(t, protocol.StatusOK, r.Status)
		epoch, owned = r.MemberEpoch, r.Assignment.AssignedShards
		if len(owned) > 0 {
			return beats, time.Since(first), r
		}
		require.NotEmpty(t, r.Message, "pending shards with no reason")
	}
	t.Fatalf("%s was never granted a shard", id)
	return 0, 0, protocol.HeartbeatResponse{}
}

// On a fresh store the first member is granted within two heartbeat intervals of its first
// heartbeat, with health OK throughout.
func TestNewDataSetGrantsWithinTwoIntervals(t *testing.T) {
	mem, prov := newQuickStore(t)
	h := newDataSetHost(t, mem, prov)
	// Counted in heartbeats, not wall time: a loaded machine spaces them
	// further apart, which only makes the grant come sooner in beats.
	beats, took, r := waitGranted(t, h, "m")
	require.LessOrEqual(t, beats, 3, "granted at heartbeat %d, %s after the first", beats, took)
	require.Len(t, r.Assignment.AssignedShards, 4)
	require.Equal(t, "UP", h.Service().Health(context.Background()).Status)
}

// A member of an earlier data set that reports its shards during the first lease holds the
// group for a lease, even though another member joined first.
func TestNewDataSetLateClaimHoldsAnOccupiedGroup(t *testing.T) {
	mem, prov := newQuickStore(t)
	h := newDataSetHost(t, mem, prov)
	j := beat(t, h, "new", 0, nil)
	quietEnds := time.Now().Add(group.QuietWait(quickRules)) // the group was activated before now
	require.Empty(t, j.Assignment.AssignedShards, "granted during the quiet interval")
	require.Contains(t, j.Message, "new coordinator data set")
	require.Equal(t, protocol.StatusUnknownMemberID, beat(t, h, "old", 4, protocol.ShardIDs([]int{1})).Status)
	// Deliberately let the quiet interval pass (no signal marks its end: the claims' hold
	// replaced its reason), so that only the claims' hold can keep the grant back.
	time.Sleep(time.Until(quietEnds))
	r := beat(t, h, "new", j.MemberEpoch, nil)
	require.Empty(t, r.Assignment.AssignedShards, "granted while the old member may read")
	health := h.Service().Health(context.Background())
	require.NotNil(t, health.StateLost)
	require.Equal(t, groupdeps.LossMemberClaims, health.StateLost.Case)
}

// A new group whose shard streams show a Redis consumer active within a lease is held for a
// lease (members of an earlier data set still read); one idle for longer is not.
func TestNewDataSetActiveReadersHoldTheGroup(t *testing.T) {
	for _, idle := range []time.Duration{50 * time.Millisecond, 10 * time.Second} {
		mem, prov := newQuickStore(t)
		prov.SetConsumers("orders", "workers", 2, persistence.ShardConsumer{Name: "old-member", IdleMs: idle.Milliseconds()})
		h := newDataSetHost(t, mem, prov)
		if idle > quickRules.LeaseTTL {
			_, _, r := waitGranted(t, h, "m")
			require.Len(t, r.Assignment.AssignedShards, 4, "idle %s: a consumer idle for longer than a lease held grants", idle)
			require.Nil(t, h.Service().Health(context.Background()).StateLost)
			continue
		}
		j := beat(t, h, "m", 0, nil)
		quietEnds := time.Now().Add(group.QuietWait(quickRules)) // the group was activated before now
		// Deliberately let the quiet interval pass (no signal marks its end), so that only
		// the readers' hold can keep the grant back.
		time.Sleep(time.Until(quietEnds))
		r := beat(t, h, "m", j.MemberEpoch, nil)
		health := h.Service().Health(context.Background())
		require.Empty(t, r.Assignment.AssignedShards, "granted while an earlier member reads shard 2")
		require.NotNil(t, health.StateLost)
		require.Equal(t, groupdeps.LossActiveReaders, health.StateLost.Case)
		require.Contains(t, health.StateLost.Reason, `"old-member"`)
	}
}
