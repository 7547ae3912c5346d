package host

import (
	"github.com/redisstream/coordinator/actors/node"
	"github.com/redisstream/coordinator/actors/router"
)

// nodeSide is the host as its node sees it in cluster mode: node.Cluster.
// The node's node.Groups (the group actors of this node) is the router.
type nodeSide struct{ h *Host }

var (
	_ node.Groups  = (*router.Router)(nil)
	_ node.Cluster = nodeSide{}
)

// newNode builds the host's node (actors/node: renewal, registry, conflicts,
// eviction, store-loss holds); h.opts is final (defaults applied). The node
// reaches the group actors through the router and the cluster through
// nodeSide.
func newNode(h *Host) *node.Node {
	o := h.opts
	no := node.Options{
		Store: o.Store, Rules: o.Rules, NodeID: o.NodeID, Logger: o.Logger, Now: o.Now,
		StoreTimeout: o.RequestTimeout / 2, TrustEmptyStore: o.TrustEmptyStore, Metrics: o.NodeMetrics,
		ClusterView: o.ClusterView, ClusterName: o.ClusterName, ClusterProvider: o.ClusterProvider, ClusterSettle: o.ClusterSettle,
		Groups: h.router,
	}
	if o.Cluster != nil {
		no.Cluster = nodeSide{h}
	}
	return node.New(no)
}

// MemberID is this node's id in the cluster's member list: the actor system
// id for automanaged and test, a per-start id for kubernetes (found by this
// node's address). Block lists hold these ids. "" in single mode.
func (s nodeSide) MemberID() string {
	h := s.h
	if !h.router.Clustered() {
		return ""
	}
	addr := h.system.Address()
	for _, m := range h.clusterMembers() {
		if m.Address() == addr {
			return m.ID
		}
	}
	return h.system.ID
}

// Blocked lists the cluster member ids this node has evicted (nil in single
// mode), sorted: blockedMembers.
func (s nodeSide) Blocked() []string {
	if !s.h.router.Clustered() {
		return nil
	}
	return s.h.blockedMembers()
}

// Leaving reports whether Stop began handing this node's groups over.
func (s nodeSide) Leaving() bool {
	s.h.cl.mu.Lock()
	defer s.h.cl.mu.Unlock()
	return s.h.cl.leaving
}

// PlacementMoved reports whether a member joined within the last lease TTL +
// heartbeat interval: a group this node activated before the join may have
// been activated again on the new member meanwhile (placement.go).
func (s nodeSide) PlacementMoved() bool {
	h := s.h
	h.cl.mu.Lock()
	defer h.cl.mu.Unlock()
	return !h.cl.joinedAt.IsZero() && h.opts.Now().Sub(h.cl.joinedAt) < h.opts.Rules.LeaseTTL+h.opts.Rules.HeartbeatInterval
}

// Evicted stops answering for the groups this node hosted (their new
// activations elsewhere fence these) and tells the process.
func (s nodeSide) Evicted(reason string) {
	h := s.h
	h.router.StopAll()
	if f := h.opts.Cluster.Evicted; f != nil {
		f(reason)
	}
}
