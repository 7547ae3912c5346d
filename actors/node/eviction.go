package node

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/redisstream/coordinator/persistence"
)

// evictedByPeers decides from the node registry whether this node was evicted
// from its cluster. protoactor-go blocks an evicted member for good but does
// not tell it (its endpoint ignores the "blocked" answer): a node that was
// paused or cut off keeps believing it is a member and would re-activate the
// groups the cluster placed elsewhere. Every node publishes the member ids it
// has blocked with its renewal, so the evicted node reads its fate there.
//
// Only live, serving peers of the same cluster count, and only when some of
// them blocked this node. This node's side is itself plus the peers it has
// not blocked and that have not blocked it; a side that is a strict majority
// stays, a minority was evicted. On a tie (two nodes cut apart), a node that
// was blocked by a peer it did not block itself (it was the silent one)
// yields; when every block is mutual, the node that registered later yields,
// so that exactly one side exits.
func evictedByPeers(self persistence.NodeRegistration, peers []persistence.NodeRegistration) (blockers []string, evicted bool) {
	if self.MemberID == "" {
		return nil, false
	}
	counted, side, oneSided := 0, 1, false
	var earliest *persistence.NodeRegistration
	for i, p := range peers {
		if p.Owner == self.Owner || p.MemberID == "" || p.Refusing || p.ClusterName != self.ClusterName {
			continue
		}
		counted++
		blocksMe, blockedByMe := slices.Contains(p.Blocked, self.MemberID), slices.Contains(self.Blocked, p.MemberID)
		if !blocksMe {
			if !blockedByMe {
				side++
			}
			continue
		}
		blockers = append(blockers, p.NodeID+" ("+p.Address+")")
		oneSided = oneSided || !blockedByMe
		if earliest == nil || p.Before(*earliest) {
			earliest = &peers[i]
		}
	}
	total := counted + 1
	switch {
	case len(blockers) == 0, 2*side > total:
		return blockers, false
	case 2*side < total:
		return blockers, true
	case oneSided:
		return blockers, true
	}
	return blockers, earliest.Before(self)
}

// checkEvicted runs evictedByPeers on one renewal's view (cluster mode).
func (n *Node) checkEvicted(self persistence.NodeRegistration, peers []persistence.NodeRegistration) {
	if blockers, evicted := evictedByPeers(self, peers); evicted {
		if n.opts.Cluster.Leaving() {
			// Peers block a member that left: the expected end of this node's own
			// departure, not an eviction (it stops anyway).
			if n.blockedLeaving.CompareAndSwap(false, true) {
				n.opts.Logger.Info("the other nodes no longer accept this node: it is leaving the cluster",
					slog.String("blockedBy", strings.Join(blockers, ", ")))
			}
			return
		}
		n.Evict(fmt.Sprintf("the other nodes of the cluster evicted it (blocked by %s); it cannot rejoin", strings.Join(blockers, ", ")))
	}
}

// Evict handles this node's eviction from its cluster (found by
// checkEvicted, or by the host noticing its process was paused): the node
// refuses every request from now on, and Cluster.Evicted stops its groups
// and tells the process. Only the first call counts.
func (n *Node) Evict(reason string) {
	if !n.evicted.CompareAndSwap(false, true) {
		return
	}
	n.opts.Logger.Error("this node was evicted from the cluster and cannot rejoin it; exiting so that its supervisor restarts it fresh",
		slog.String("reason", reason))
	if c := n.opts.Cluster; c != nil {
		c.Evicted(reason)
	}
}

// WatchPause notices that this process was paused (SIGSTOP, a frozen VM, a
// stop-the-world stall) for longer than the cluster tolerates: the other
// nodes have then evicted it for good, and it must not live on as a
// zombie that re-activates groups the cluster placed elsewhere. It runs until
// done is closed; limit is how long the cluster tolerates a silent member.
func (n *Node) WatchPause(done <-chan struct{}, limit time.Duration) {
	const tick = 100 * time.Millisecond
	t := time.NewTicker(tick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			gap := now.Sub(last)
			last = now
			if gap > limit {
				n.Evict(fmt.Sprintf("this process was paused for %s (the cluster evicts a node that is silent for %s)",
					gap.Round(time.Millisecond), limit))
				return
			}
		}
	}
}
