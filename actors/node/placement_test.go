package node

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

// gateCluster is a node.Cluster whose member list places every group on
// owner (this node is "B").
type gateCluster struct{ place Placement }

func (gateCluster) MemberID() string                           { return "mb" }
func (gateCluster) Blocked() []string                          { return nil }
func (gateCluster) Leaving() bool                              { return false }
func (gateCluster) PlacementMoved() bool                       { return false }
func (gateCluster) Evicted(string)                             {}
func (c gateCluster) Placement(persistence.GroupKey) Placement { return c.place }

// The node's side of the rejoin gate: it reads the stored owner only when it
// matters, never waits for a previous incarnation of its own node id (a
// restart) or a released group, waits for a live peer, and is off without a
// cluster (single mode).
func TestRejoinGateReadsTheHolderAndItsRegistration(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "g"}
	now := time.Now()
	justChanged := Placement{Self: "B", Owner: "B", ChangedAt: now, Listed: map[string]string{"ma": "A", "mb": "B"}}
	newNode := func(c Cluster) *Node {
		n := New(Options{Store: store, NodeID: "b", Rules: quickRules, Cluster: c,
			ClusterView: func() (string, []string) { return "B", []string{"A", "B"} }})
		n.reg.self = persistence.NodeRegistration{Owner: n.owner}
		return n
	}
	peer := persistence.NodeRegistration{Owner: "a/1", NodeID: "a", Address: "A", MemberID: "ma"}

	require.Empty(t, whyOf(New(Options{Store: store, NodeID: "b", Rules: quickRules}), key), "single mode: no gate")

	n := newNode(gateCluster{justChanged})
	require.Empty(t, whyOf(n, key), "never activated")

	_, err := store.Activate(ctx, key, "a/1")
	require.NoError(t, err)
	n.reg.peers = []persistence.NodeRegistration{peer}
	require.Contains(t, whyOf(n, key), "live on node a (A)")
	fresh := newNode(gateCluster{justChanged})
	fresh.reg.self = persistence.NodeRegistration{}
	require.Contains(t, whyOf(fresh, key), "has not read the node registry yet")
	n.reg.peers = nil
	require.Empty(t, whyOf(n, key), "holder's registration gone: dead")

	snap, err := store.Activate(ctx, key, "b/old")
	require.NoError(t, err)
	require.Empty(t, whyOf(newNode(gateCluster{justChanged}), key), "a previous incarnation of this node is dead (restart)")

	require.NoError(t, store.ReleaseActivation(ctx, key, snap.ActivationEpoch, nil))
	_, err = store.Activate(ctx, key, "a/1")
	require.NoError(t, err)
	stable := justChanged
	stable.ChangedAt = now.Add(-time.Minute)
	s := newNode(gateCluster{stable})
	s.reg.peers = []persistence.NodeRegistration{peer}
	require.Empty(t, whyOf(s, key), "a list stable for the window: no wait")

	elsewhere := stable
	elsewhere.Owner = "A"
	why, placed := newNode(gateCluster{elsewhere}).PlacedElsewhere(key)
	require.Contains(t, why, "places the group on A")
	require.True(t, placed, "placed elsewhere: the grain stops")
	_, placed = n.PlacedElsewhere(key)
	require.False(t, placed)
}

// whyOf is n.PlacedElsewhere's reason.
func whyOf(n *Node, key persistence.GroupKey) string {
	why, _ := n.PlacedElsewhere(key)
	return why
}
