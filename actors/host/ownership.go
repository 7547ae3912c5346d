package host

import (
	"time"

	"github.com/asynkron/protoactor-go/cluster"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/persistence"
)

// The rejoin gate (docs/RELIABILITY.md, "A node rejoining"). protoactor's
// placement actor spawns a grain for any activation request it receives,
// whether or not its own member list places the identity here: the request's
// node picked it from *its* member list. While the nodes' lists converge
// after a member joined (or left), a node with the old list keeps asking a
// node that has already handed the group to the new member, which activates
// it again; the new member's next activation fences that one, and so on,
// once per request, until every list agrees (measured: 9–11 activations of
// each moving group in ≈ 1 s, a quarter of the heartbeats RETRY).
//
// The gate: a group actor activates only where this node's own member list
// places it. A request placed by a stale list is answered RETRY (the member
// tries another node, whose list is newer) and the actor stops. The gate
// applies within settleWindow of this node's last member-list change; after
// that, lists that still disagree (an asymmetric partition) are not allowed
// to keep a group unserved, and the actor activates as before (fencing keeps
// it safe either way).

// placement is this node's rendezvous over its last member list.
type placement struct {
	rdv      *cluster.Rendezvous
	at       time.Time       // when the member list last changed
	departed map[string]bool // addresses a member list held and a later one dropped
}

// notePlacement records the member list of a topology event (called by
// onTopology with h.cl.mu held); the settle window restarts only when the
// list changed (prev → next).
func (h *Host) notePlacement(prev, next []memberView, members []*cluster.Member) {
	rdv := cluster.NewRendezvous()
	rdv.UpdateMembers(members)
	at, departed := h.cl.place.at, h.cl.place.departed
	if !sameMembers(prev, next) {
		at = h.opts.Now()
		departed = noteDeparted(departed, prev, next)
	}
	h.cl.place = placement{rdv: rdv, at: at, departed: departed}
}

// noteDeparted returns the addresses that left the member list (prev → next)
// or left it earlier and did not come back.
func noteDeparted(old map[string]bool, prev, next []memberView) map[string]bool {
	out := make(map[string]bool, len(old)+len(prev))
	for a := range old {
		out[a] = true
	}
	for _, m := range prev {
		out[m.Addr] = true
	}
	for _, m := range next {
		delete(out, m.Addr)
	}
	return out
}

func sameMembers(a, b []memberView) bool {
	if len(a) != len(b) {
		return false
	}
	ids := make(map[string]bool, len(a))
	for _, m := range a {
		ids[m.ID] = true
	}
	for _, m := range b {
		if !ids[m.ID] {
			return false
		}
	}
	return true
}

// settleWindow is how long after a member-list change the gate holds.
func (h *Host) settleWindow() time.Duration {
	if h.opts.ClusterSettle > 0 {
		return h.opts.ClusterSettle
	}
	return defaultClusterSettle
}

// defaultClusterSettle is the gate's window when Options.ClusterSettle is not
// set (the node registry's default too).
const defaultClusterSettle = 5 * time.Second

// PlacedElsewhere returns why this node must not activate key now ("" when it
// may): its member list changed within the settle window and places the
// group on another member (groupdeps.Node.PlacedElsewhere).
func (s nodeSide) PlacedElsewhere(key persistence.GroupKey) string {
	h := s.h
	h.cl.mu.Lock()
	p := h.cl.place
	h.cl.mu.Unlock()
	if p.rdv == nil || h.opts.Now().Sub(p.at) >= h.settleWindow() {
		return ""
	}
	owner := p.rdv.GetByClusterIdentity(&cluster.ClusterIdentity{Identity: group.IdentityOf(key), Kind: group.Kind})
	if owner == "" || owner == h.system.Address() {
		return ""
	}
	return "this node's member list places the group on " + owner + " (the requesting node's list is older; the lists converge within seconds)"
}

// Departed reports whether this node saw addr leave its member list (and
// not come back): node.Cluster.Departed.
func (s nodeSide) Departed(addr string) bool {
	s.h.cl.mu.Lock()
	defer s.h.cl.mu.Unlock()
	return s.h.cl.place.departed[addr]
}

// Settling reports whether this node's member list changed within the
// settle window (node.Cluster.Settling).
func (s nodeSide) Settling() bool {
	h := s.h
	h.cl.mu.Lock()
	at := h.cl.place.at
	h.cl.mu.Unlock()
	return !at.IsZero() && h.opts.Now().Sub(at) < h.settleWindow()
}
