package node

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

// gateCluster is a node.Cluster whose member list places every group on
// owner and may be settling.
type gateCluster struct {
	elsewhere string
	settling  bool
	departed  map[string]bool
}

func (gateCluster) MemberID() string                              { return "" }
func (gateCluster) Blocked() []string                             { return nil }
func (gateCluster) Leaving() bool                                 { return false }
func (gateCluster) PlacementMoved() bool                          { return false }
func (gateCluster) Evicted(string)                                {}
func (c gateCluster) PlacedElsewhere(persistence.GroupKey) string { return c.elsewhere }
func (c gateCluster) Settling() bool                              { return c.settling }
func (c gateCluster) Departed(addr string) bool                   { return c.departed[addr] }

// The rejoin gate: while the member list settles, a group whose activation
// is live on a reachable, serving peer is not activated here; a released
// group, a dead or unreachable holder, a previous incarnation of this node,
// or a settled list let it activate. This node's own list placing the group
// elsewhere always holds it (within the window, which Cluster decides).
func TestRejoinGateHoldsGroupsLiveOnReachablePeers(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "g"}
	members := []string{"A", "B"}
	newNode := func(c gateCluster) *Node {
		return New(Options{Store: store, NodeID: "b", Rules: quickRules, Cluster: c,
			ClusterView: func() (string, []string) { return "B", members }})
	}
	peer := persistence.NodeRegistration{Owner: "a/1", NodeID: "a", Address: "A"}

	n := newNode(gateCluster{settling: true})
	require.Empty(t, n.PlacedElsewhere(key), "never activated")

	_, err := store.Activate(ctx, key, "a/1")
	require.NoError(t, err)
	n.reg.peers = []persistence.NodeRegistration{peer}
	why := n.PlacedElsewhere(key)
	require.Contains(t, why, "live on node a (A)")

	n.reg.peers = []persistence.NodeRegistration{{Owner: "a/1", NodeID: "a", Address: "A", Refusing: true}}
	require.Empty(t, n.PlacedElsewhere(key), "a refusing holder answers nothing")
	n.reg.peers = nil
	require.Empty(t, n.PlacedElsewhere(key), "holder's registration gone: dead")
	n.reg.peers = []persistence.NodeRegistration{peer}
	members = []string{"B"}
	require.NotEmpty(t, n.PlacedElsewhere(key), "holder not listed yet (this node just started): still waited for")
	left := newNode(gateCluster{settling: true, departed: map[string]bool{"A": true}})
	left.reg.peers = []persistence.NodeRegistration{peer}
	require.Empty(t, left.PlacedElsewhere(key), "holder dropped from this node's member list: not waited for")
	members = []string{"A", "B"}

	settled := newNode(gateCluster{})
	settled.reg.peers = []persistence.NodeRegistration{peer}
	require.Empty(t, settled.PlacedElsewhere(key), "after the settle window the gate is off")

	snap, err := store.Activate(ctx, key, "b/old")
	require.NoError(t, err)
	require.Empty(t, n.PlacedElsewhere(key), "a previous incarnation of this node is dead")

	_, err = store.Activate(ctx, key, "a/1")
	require.NoError(t, err)
	require.NoError(t, store.ReleaseActivation(ctx, key, snap.ActivationEpoch+1, nil))
	require.Empty(t, n.PlacedElsewhere(key), "released: the holder handed it over")

	own := newNode(gateCluster{elsewhere: "placed on A"})
	require.Equal(t, "placed on A", own.PlacedElsewhere(key))
}
