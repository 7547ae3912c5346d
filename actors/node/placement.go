package node

import (
	"context"
	"sync"
	"time"

	"github.com/redisstream/coordinator/persistence"
)

// rejoinGate is the node's side of the rejoin gate (docs/RELIABILITY.md, "A
// node rejoining"): it gathers the inputs of decide (gate.go) — this node's
// member list (Cluster.Placement), the group's stored owner (one LoadGroup,
// only when the verdict depends on it) and that owner's registration — and
// remembers since when each group has been refused here.
type rejoinGate struct {
	mu  sync.Mutex
	eps episodes
}

// placedElsewhere returns why this node must not activate key now ("" when
// it may) and whether its own list places key elsewhere:
// groupdeps.Node.PlacedElsewhere. Off in single mode.
func (n *Node) placedElsewhere(key persistence.GroupKey) (string, bool) {
	c := n.opts.Cluster
	if c == nil {
		return "", false
	}
	now := n.opts.Now()
	window := n.settleWindow()
	g := &n.gate
	g.mu.Lock()
	in := gateInput{Now: now, Window: window, Placement: c.Placement(key), Refusing: g.eps.since(key, now, window)}
	g.mu.Unlock()
	var held persistence.NodeRegistration
	v := decide(in, func() holder {
		h, peer := n.holder(key, in.Placement)
		held = peer
		return h
	})
	g.mu.Lock()
	g.eps.note(key, v, now, window)
	g.mu.Unlock()
	switch v {
	case placedElsewhere:
		return "this node's member list places the group on " + in.Placement.Owner +
			" (the requesting node's list differs; the lists converge within seconds)", true
	case waitForHolder:
		if held.Owner == "" {
			return "the group's activation is held by another node and this node has not read the node registry yet", false
		}
		return "the group's activation is live on node " + held.NodeID + " (" + held.Address +
			"), whose member list does not place it here yet; it hands the group over when it does", false
	}
	return "", false
}

// holder reads the group's stored owner and classifies it (gate.go); peer is
// the owner's registration when one was found.
func (n *Node) holder(key persistence.GroupKey, p Placement) (holder, persistence.NodeRegistration) {
	ctx, cancel := context.WithTimeout(context.Background(), n.opts.StoreTimeout)
	defer cancel()
	snap, err := n.opts.Store.LoadGroup(ctx, key)
	if err != nil || snap.Owner == "" || snap.Owner == n.owner || persistence.OwnerNode(snap.Owner) == n.opts.NodeID {
		return holderNone, persistence.NodeRegistration{}
	}
	r := n.reg
	r.mu.Lock()
	read := r.self.Owner != ""
	var peer persistence.NodeRegistration
	found := false
	for _, q := range r.peers {
		if q.Owner == snap.Owner {
			peer, found = q, true
		}
	}
	r.mu.Unlock()
	if !read {
		return holderUnknown, peer
	}
	return peerHolder(peer, found, p), peer
}

// settleWindow is Options.ClusterSettle, default defaultClusterSettle.
func (n *Node) settleWindow() time.Duration {
	if s := n.opts.ClusterSettle; s > 0 {
		return s
	}
	return defaultClusterSettle
}
