package host

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

var quickRules = model.Config{HeartbeatInterval: 100 * time.Millisecond, LeaseTTL: 600 * time.Millisecond,
	RebalanceTimeout: time.Second, Retention: time.Hour}

func quickHost(t *testing.T, store persistence.Store, prov persistence.Provisioner, id string) *Host {
	t.Helper()
	h := New(Options{Store: store, Provisioner: prov, NodeID: id, Rules: quickRules, TrustEmptyStore: true, ClusterView: testCluster(id),
		IdlePassivation: 300 * time.Millisecond, SweepInterval: 200 * time.Millisecond})
	t.Cleanup(h.Stop)
	require.NoError(t, h.Start(context.Background()))
	return h
}

func newQuickStore(t *testing.T) (*memstore.Store, *memstore.Provisioner) {
	t.Helper()
	mem, prov := memstore.New(), memstore.NewProvisioner()
	_, err := mem.CreateStream(context.Background(), persistence.StreamRecord{StreamPrefix: "orders", ShardCount: 4, MetadataVersion: 1})
	require.NoError(t, err)
	return mem, prov
}

var workers = persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "workers"}

func beat(t *testing.T, h *Host, id string, epoch int64, owned []protocol.ShardID) protocol.HeartbeatResponse {
	t.Helper()
	r, err := h.Service().Heartbeat(context.Background(), "orders", "workers", id,
		protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: id, MemberID: id, MemberEpoch: epoch, OwnedShards: owned})
	require.NoError(t, err)
	return r
}

func storedMeta(t *testing.T, s persistence.Store) (persistence.GroupSnapshot, model.Meta) {
	t.Helper()
	snap, err := s.LoadGroup(context.Background(), workers)
	require.NoError(t, err)
	var meta model.Meta
	require.NoError(t, json.Unmarshal(snap.Meta, &meta))
	return snap, meta
}

// A group with a live member never passivates; once its last member left it passivates after
// the idle time, gives the activation up (owner cleared) and leaves the live index; a later
// join re-activates it with epochs that continue where they were.
func TestIdleGroupPassivatesAndKeepsItsEpochs(t *testing.T) {
	mem, prov := newQuickStore(t)
	h := quickHost(t, mem, prov, "n1")
	r := beat(t, h, "a", 0, nil)
	require.Equal(t, protocol.StatusOK, r.Status)
	oks := 0
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		next := beat(t, h, "a", r.MemberEpoch, r.Assignment.AssignedShards)
		_, active := h.router.Active(workers)
		require.True(t, active, "a live member's group stays active")
		if next.Status == protocol.StatusRetry {
			// A loaded machine can delay the node's confirmation past its
			// validity (lease 600 ms here): RETRY, and the member keeps its
			// shards; it is not passivation.
			t.Logf("RETRY under load: %s", next.Message)
			continue
		}
		require.Equal(t, protocol.StatusOK, next.Status, "%s", next.Message)
		r = next
		oks++
		require.Len(t, r.Assignment.AssignedShards, 4)
	}
	require.Positive(t, oks, "the live member's heartbeats are answered OK")
	leave := beat(t, h, "a", -1, nil)
	require.Equal(t, protocol.StatusOK, leave.Status)
	_, before := storedMeta(t, mem)

	require.Eventually(t, func() bool { _, ok := h.router.Active(workers); return !ok }, 5*time.Second, 20*time.Millisecond, "idle group did not passivate")
	snap, after := storedMeta(t, mem)
	require.Equal(t, "", snap.Owner, "passivation releases the activation")
	require.Equal(t, before, after, "passivation changes no stored state")
	orphans, err := mem.Orphans(context.Background(), "other")
	require.NoError(t, err)
	require.Empty(t, orphans, "an idle group leaves the live index")

	b := beat(t, h, "b", 0, nil)
	require.Equal(t, protocol.StatusOK, b.Status)
	require.Greater(t, b.MemberEpoch, r.MemberEpoch, "epochs continue after re-activation")
	require.Greater(t, b.GroupEpoch, before.GroupEpoch)
	require.Len(t, b.Assignment.AssignedShards, 4, "a released activation needs no takeover wait")
}

// A node dies with a live member in a group; the member dies too. No request ever names the
// group again, yet the sweep of another node (or of the same node restarted) activates it,
// the member expires after a full lease, and the group passivates.
func TestSweepExpiresMembersOfAGroupNobodyHosts(t *testing.T) {
	for _, nextNode := range []string{"n1", "n2"} {
		t.Run("next="+nextNode, func(t *testing.T) {
			mem, prov := newQuickStore(t)
			cut := &partStore{Store: mem}
			h1 := quickHost(t, cut, prov, "n1")
			r := beat(t, h1, "m", 0, nil)
			require.Equal(t, protocol.StatusOK, r.Status)
			cut.down.Store(true)
			h1.Stop() // a crash: no release; its node record expires after a lease

			h2 := quickHost(t, mem, prov, nextNode)
			require.Eventually(t, func() bool {
				snap, err := mem.LoadGroup(context.Background(), workers)
				require.NoError(t, err)
				var m model.Member
				require.NoError(t, json.Unmarshal(snap.Members["m"], &m))
				return m.State == model.StateExpired
			}, 10*time.Second, 20*time.Millisecond, "the dead member of a group nobody hosted never expired")
			require.Eventually(t, func() bool { _, ok := h2.router.Active(workers); return !ok }, 5*time.Second, 20*time.Millisecond,
				"the swept group did not passivate once its member expired")
			orphans, err := mem.Orphans(context.Background(), "other")
			require.NoError(t, err)
			require.Empty(t, orphans)
		})
	}
}
