package node

import (
	"context"
	"slices"

	"github.com/redisstream/coordinator/persistence"
)

// placedElsewhere is the rejoin gate (docs/RELIABILITY.md, "A node
// rejoining"): while the member lists of the nodes may still disagree (this
// node's changed within the settle window), a group is not activated here
//
//   - when this node's own list places it on another member (a node with an
//     older list sent the request: Cluster.PlacedElsewhere), or
//   - when its current activation is live on another node that this node can
//     reach: the stored owner is another incarnation whose registration is
//     live and not refusing, and whose cluster address is in this node's
//     member list or, if not, has never left it (a node that just started
//     does not list every peer yet; a peer it saw leave, dropped after a
//     kill -9, is not waited for). That node's list does not place the group here yet (else
//     it would have released it); taking it over now would make that node
//     take it back at its members' next heartbeat. It releases the group,
//     with its members' timers, once its list places the group here, and
//     this node then activates it once (no takeover wait, leases continue).
//
// The answer meanwhile is RETRY (members keep their shards and try another
// node). After the settle window the gate is off: lists that still disagree
// must not keep a group unserved, and fencing keeps two activations safe.
// A store read that fails does not hold the group (fencing decides).
func (n *Node) placedElsewhere(key persistence.GroupKey) string {
	c := n.opts.Cluster
	if c == nil {
		return ""
	}
	if why := c.PlacedElsewhere(key); why != "" {
		return why
	}
	if !c.Settling() || n.opts.ClusterView == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.opts.StoreTimeout)
	defer cancel()
	snap, err := n.opts.Store.LoadGroup(ctx, key)
	if err != nil || snap.Owner == "" || snap.Owner == n.owner || persistence.OwnerNode(snap.Owner) == n.opts.NodeID {
		// Never activated, released, ours, or a previous incarnation of this node (dead).
		return ""
	}
	holder, ok := n.reachablePeer(snap.Owner)
	if !ok {
		return ""
	}
	return "the group's activation is live on node " + holder.NodeID + " (" + holder.Address +
		"), whose member list does not place it here yet; it hands the group over when it does"
}

// reachablePeer returns the live registration of owner if it serves and its
// cluster address is in this node's member list or never left it.
func (n *Node) reachablePeer(owner string) (persistence.NodeRegistration, bool) {
	_, members := n.opts.ClusterView()
	r := n.reg
	r.mu.Lock()
	var peer persistence.NodeRegistration
	for _, p := range r.peers {
		if p.Owner == owner {
			peer = p
		}
	}
	r.mu.Unlock()
	if peer.Owner == "" || peer.Refusing || peer.Address == "" {
		return peer, false
	}
	if slices.Contains(members, peer.Address) {
		return peer, true
	}
	if c := n.opts.Cluster; c.Departed(peer.Address) || (peer.MemberID != "" && slices.Contains(c.Blocked(), peer.MemberID)) {
		return peer, false
	}
	return peer, true
}
