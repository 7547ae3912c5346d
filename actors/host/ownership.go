package host

import (
	"slices"

	"github.com/asynkron/protoactor-go/cluster"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/actors/node"
	"github.com/redisstream/coordinator/persistence"
)

// The host's side of the rejoin gate (docs/RELIABILITY.md, "A node
// rejoining"; the rules are actors/node/gate.go). protoactor's placement
// actor spawns a grain for any activation request it receives, whether or
// not its own member list places the identity here: the requesting node
// picked it from *its* list. While the lists converge after a member joined
// or left, that made a group alternate between two nodes (measured: 9–11
// activations of each moving group in ≈ 1 s). The gate needs this node's own
// placement: a rendezvous over its last member list, when that list last
// changed, and which members it saw leave.

// placement is this node's view of its last member list; replaced whole by
// onTopology (never written after), read under h.cl.mu.
type placement struct {
	rdv     *cluster.Rendezvous
	view    node.Placement // Self, ChangedAt, Listed, Departed (Owner per group)
	hasTopo bool           // a topology event arrived
}

// notePlacement records the member list of a topology event (called by
// onTopology with h.cl.mu held). The list's change time moves only when its
// members changed (prev → next, by member id); a member id that was listed
// and is not any more is departed until it comes back.
func (h *Host) notePlacement(prev, next []memberView, members []*cluster.Member) {
	rdv := cluster.NewRendezvous()
	rdv.UpdateMembers(copyMembers(members))
	old := h.cl.place.view
	view := node.Placement{Self: h.system.Address(), ChangedAt: old.ChangedAt, Departed: old.Departed,
		Listed: make(map[string]string, len(next))}
	for _, m := range next {
		view.Listed[m.ID] = m.Addr
	}
	if !h.cl.place.hasTopo || !sameMembers(prev, next) {
		view.ChangedAt = h.opts.Now()
		view.Departed = noteDeparted(old.Departed, prev, next)
	}
	h.cl.place = placement{rdv: rdv, view: view, hasTopo: true}
}

// copyMembers copies the members a topology event lists: the provider
// rewrites its own values later without a lock this node can take.
func copyMembers(ms []*cluster.Member) []*cluster.Member {
	out := make([]*cluster.Member, 0, len(ms))
	for _, m := range ms {
		out = append(out, &cluster.Member{Host: m.Host, Port: m.Port, Id: m.Id, Kinds: slices.Clone(m.Kinds)})
	}
	return out
}

// blockedMembers lists, sorted, the member ids this node saw leave its member
// list and not come back: the members its cluster library block-listed (a
// member that left is blocked for good, so it never comes back). It is read
// from this node's copy of the topology events, not from the library's
// block list, which the library replaces without a lock a reader can take
// (a data race under -race). Members only other nodes blocked, which this
// node never listed, are not in it.
func (h *Host) blockedMembers() []string {
	h.cl.mu.Lock()
	defer h.cl.mu.Unlock()
	out := make([]string, 0, len(h.cl.place.view.Departed))
	for id := range h.cl.place.view.Departed {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// noteDeparted returns the member ids that left the list (prev → next) or
// left it earlier and did not come back.
func noteDeparted(old map[string]bool, prev, next []memberView) map[string]bool {
	out := make(map[string]bool, len(old)+len(prev))
	for id := range old {
		out[id] = true
	}
	for _, m := range prev {
		out[m.ID] = true
	}
	for _, m := range next {
		delete(out, m.ID)
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

// Placement is what this node's member list says about key
// (node.Cluster.Placement): Owner "" before the first topology event.
func (s nodeSide) Placement(key persistence.GroupKey) node.Placement {
	h := s.h
	h.cl.mu.Lock()
	p := h.cl.place
	h.cl.mu.Unlock()
	v := p.view
	if p.rdv != nil {
		v.Owner = p.rdv.GetByClusterIdentity(&cluster.ClusterIdentity{Identity: group.IdentityOf(key), Kind: group.Kind})
	}
	return v
}
