package host

import (
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/node"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/persistence"
)

// hostNode is the host's handle on its node (actors/node): the node's life
// (renewal, registry, conflicts, eviction, store-loss holds) lives there; the
// host only keeps the group actors' PIDs and the cluster, which the node
// reaches through nodeSide.
type hostNode struct {
	*node.Node
	// releasing: a nodeSide.Release is running.
	releasing atomic.Bool
}

// nodeSide is the host as its node sees it: node.Groups (the group actors of
// this node) and, in cluster mode, node.Cluster.
type nodeSide struct{ h *Host }

var (
	_ node.Groups  = nodeSide{}
	_ node.Cluster = nodeSide{}
)

// newNode builds the host's node; h.opts is final (defaults applied).
func newNode(h *Host) hostNode {
	o := h.opts
	no := node.Options{
		Store: o.Store, Rules: o.Rules, NodeID: o.NodeID, Logger: o.Logger, Now: o.Now,
		StoreTimeout: o.RequestTimeout / 2, TrustEmptyStore: o.TrustEmptyStore, Metrics: o.NodeMetrics,
		ClusterView: o.ClusterView, ClusterName: o.ClusterName, ClusterProvider: o.ClusterProvider, ClusterSettle: o.ClusterSettle,
		Groups: nodeSide{h},
	}
	if o.Cluster != nil {
		no.Cluster = nodeSide{h}
	}
	n := node.New(no)
	return hostNode{Node: n}
}

// refusal returns the error group routes answer while this node refuses to
// serve — evicted, or a node conflict (node.RefusingRequests) — nil
// otherwise: coordinator.ErrUnavailable (503, Retry-After) with the why.
func (h *Host) refusal() error {
	why := h.node.RefusingRequests()
	if why == "" {
		return nil
	}
	return fmt.Errorf("this coordinator node refuses to serve: %s: %w", why, coordinator.ErrUnavailable)
}

// Broadcast sends msg to every group actor of this node.
func (s nodeSide) Broadcast(msg any) {
	h := s.h
	h.mu.Lock()
	for _, pid := range h.groups {
		h.system.Root.Send(pid, msg)
	}
	h.mu.Unlock()
}

// Started records a group actor that started on this node.
func (s nodeSide) Started(key persistence.GroupKey, pid *actor.PID) { s.h.register(key, pid) }

// Stopped forgets a group actor that stopped for good.
func (s nodeSide) Stopped(key persistence.GroupKey, pid *actor.PID) { s.h.forget(key, pid) }

// Release gives up every group activation of this node (as Stop does,
// without stopping the node), in the background: the round that decides to
// refuse holds the node lock, which group actors need to verify the store.
// Called every round while refusing, so an activation that slipped in
// between a route's check and its spawn is released at the next round.
func (s nodeSide) Release() {
	h := s.h
	h.mu.Lock()
	n := len(h.groups)
	h.mu.Unlock()
	if n == 0 || !h.node.releasing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer h.node.releasing.Store(false)
		h.mu.Lock()
		keys := make([]persistence.GroupKey, 0, len(h.groups))
		pids := make([]*actor.PID, 0, len(h.groups))
		for k, pid := range h.groups {
			keys, pids = append(keys, k), append(pids, pid)
		}
		h.mu.Unlock()
		h.releaseAll(pids)
		for i, pid := range pids {
			// A released actor has stopped itself; one that had not loaded its
			// group yet (nothing to release) is stopped here.
			h.system.Root.Stop(pid)
			h.forget(keys[i], pid)
		}
		h.opts.Logger.Info("released every group activation of this node while it refuses to serve", slog.Int("groups", len(pids)))
	}()
}

// MemberID is this node's id in the cluster's member list: the actor system
// id for automanaged and test, a per-start id for kubernetes (found by this
// node's address). Block lists hold these ids. "" in single mode.
func (s nodeSide) MemberID() string {
	h := s.h
	if !h.clustered() {
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
// mode), sorted.
func (s nodeSide) Blocked() []string {
	h := s.h
	if !h.clustered() {
		return nil
	}
	out := h.cl.c.GetBlockedMembers().ToSlice()
	slices.Sort(out)
	return out
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
	for _, pid := range h.localPIDs() {
		h.system.Root.Stop(pid)
	}
	if f := h.opts.Cluster.Evicted; f != nil {
		f(reason)
	}
}
