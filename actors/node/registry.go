package node

import (
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// registry detects nodes that share this node's store (same Redis key
// prefix) without forming one cluster with it. Two such nodes take every
// group's activation from each other whenever members reach both (a load
// balancer in front of two replicas left at cluster.provider single): each
// move fences the other node's activation and gives every member a fresh
// lease. Every node registers with its renewal (persistence.NodeRegistration)
// and gets the other live registrations back in the same round trip; the
// node that registered LATER refuses to serve while an earlier conflicting
// node is live, and the earlier one keeps serving. When the conflict goes
// away (the other node stopped, or joined the cluster), the refusing node
// serves again.
//
// A peer is a conflict when it is live (its entry has not expired), is not
// this node incarnation, and is not a member of this node's cluster view
// (Options.ClusterView; with none, any other node is a conflict). Another
// incarnation of this node id is a restart (the previous process's entry
// outlives it by up to a TTL), unless it keeps renewing after this one
// registered: then two processes run with one node id, a conflict too.
//
// Only conflicts seen in every round for the grace period count: three
// renewal intervals (so one peer entry read in one round does not decide),
// plus Options.ClusterSettle when a cluster provider runs (a member that just
// started may be missing from the member list for a few refreshes).
//
// A node that refuses (or sees an earlier conflict within its grace) says so
// in its registration (Refusing), and an earlier peer that refuses blocks
// nobody: it serves nothing. Each node's state then depends only on nodes
// registered before it, so the states settle, and of nodes that all
// conflict with each other only the earliest serves. A node whose conflict is over goes on refusing for
// resumeRounds rounds, so that a later node it was shielding sees its cleared
// flag (and refuses) before this one serves.
type registry struct {
	n     *Node
	grace time.Duration

	refusing  atomic.Bool
	published atomic.Bool // the Refusing flag this node registers (refusing or about to)
	suspect   atomic.Bool // an earlier conflicting peer is seen, its grace not yet over

	mu        sync.Mutex
	firstSeen map[string]time.Time           // peer owner → first round it was seen conflicting (host clock)
	counted   []persistence.NodeRegistration // conflicts past the grace
	blocking  []persistence.NodeRegistration // those of counted that make this node refuse
	resumeIn  int                            // rounds left before a refusing node serves again
	self      persistence.NodeRegistration
	peers     []persistence.NodeRegistration // the other live entries of the last round (cluster view)
	since     time.Time                      // when the current conflict episode started counting
	reported  string                         // owners of the earlier peers last logged (log once per set)
	warned    map[string]bool                // later peers this (earlier) node already logged
}

// resumeRounds: a node whose conflict is over serves again at the
// resumeRounds-th round after (round 1 decides, round 2 publishes the cleared
// flag, round 3 serves: every other node has renewed once in between).
const resumeRounds = 3

// defaultClusterSettle is Options.ClusterSettle when a ClusterView is set and
// no value is: a few member-list refreshes of protoactor's providers.
const defaultClusterSettle = 5 * time.Second

func newRegistry(n *Node) *registry {
	grace := 3 * group.ConfirmInterval(n.opts.Rules)
	if n.opts.ClusterView != nil {
		settle := n.opts.ClusterSettle
		if settle <= 0 {
			settle = defaultClusterSettle
		}
		grace += settle
	}
	return &registry{n: n, grace: grace, firstSeen: map[string]time.Time{}, warned: map[string]bool{}}
}

// registration is what this node registers with every renewal.
func (n *Node) registration() persistence.NodeRegistration {
	o := n.opts
	addr := ""
	if o.ClusterView != nil {
		addr, _ = o.ClusterView()
	}
	provider := o.ClusterProvider
	if provider == "" {
		provider = "single"
	}
	reg := persistence.NodeRegistration{NodeID: o.NodeID, ClusterName: o.ClusterName, Provider: provider, Address: addr,
		Refusing: n.reg.published.Load()}
	if c := o.Cluster; c != nil {
		reg.MemberID, reg.Blocked = c.MemberID(), c.Blocked()
	}
	return reg
}

// conflicting reports whether peer p shares the store without being in this
// node's cluster. members is the cluster view (addresses), nil for single.
func (r *registry) conflicting(p, self persistence.NodeRegistration, members map[string]bool) bool {
	if p.Owner == self.Owner {
		return false
	}
	if p.NodeID == self.NodeID {
		// Same node id: a previous incarnation stopped renewing before this one
		// registered. One still renewing (within the grace) runs concurrently.
		return p.RenewedAt.After(self.RegisteredAt) && self.RenewedAt.Sub(p.RenewedAt) < r.grace
	}
	if c := r.n.opts.Cluster; p.MemberID != "" && c != nil && slices.Contains(c.Blocked(), p.MemberID) {
		// A member this node evicted: it reads that from this node's entry and exits
		// (eviction.go); it must not make this node refuse meanwhile.
		return false
	}
	return p.Address == "" || !members[p.Address]
}

// observe takes one successful renewal's view of the registry (called by
// Node.Round, one at a time) and updates whether this node refuses to serve.
func (r *registry) observe(self persistence.NodeRegistration, peers []persistence.NodeRegistration, now time.Time) {
	var members map[string]bool
	if view := r.n.opts.ClusterView; view != nil {
		_, list := view()
		members = make(map[string]bool, len(list))
		for _, m := range list {
			members[m] = true
		}
	}
	r.mu.Lock()
	r.self, r.peers = self, peers
	var counted, blocking, later []persistence.NodeRegistration
	seen := map[string]bool{}
	suspect := false
	for _, p := range peers {
		if !r.conflicting(p, self, members) {
			continue
		}
		seen[p.Owner] = true
		first, ok := r.firstSeen[p.Owner]
		if !ok {
			first = now
			r.firstSeen[p.Owner] = now
		}
		// An earlier peer that itself refuses (because of a node earlier still)
		// serves nothing: it takes no activation from this node.
		blocks := p.Before(self) && !p.Refusing
		if now.Sub(first) < r.grace {
			suspect = suspect || blocks
			continue
		}
		counted = append(counted, p)
		switch {
		case blocks:
			blocking = append(blocking, p)
		case !p.Before(self):
			later = append(later, p)
		}
	}
	for o := range r.firstSeen {
		if !seen[o] {
			delete(r.firstSeen, o)
		}
	}
	for o := range r.warned {
		if !seen[o] {
			delete(r.warned, o)
		}
	}
	if len(counted) > 0 && len(r.counted) == 0 {
		r.since = now
	}
	r.counted, r.blocking = counted, blocking
	r.suspect.Store(suspect)
	refuseNow := len(blocking) > 0
	// Others read this node's Refusing flag from its next renewal on: publish
	// it now, and when the conflict is over, go on refusing until every other
	// node has had a round to see the flag cleared (so that a later node this
	// one was shielding refuses before this one serves).
	r.published.Store(refuseNow || suspect)
	was := r.refusing.Load()
	refuse := refuseNow
	switch {
	case refuseNow:
		r.resumeIn = 0
	case was && r.resumeIn == 0:
		r.resumeIn, refuse = resumeRounds-1, true
	case was:
		r.resumeIn--
		refuse = r.resumeIn > 0
	}
	r.refusing.Store(refuse)
	key := ownersOf(blocking)
	logRefuse := refuseNow && key != r.reported
	if refuseNow {
		r.reported = key
	} else {
		r.reported = ""
	}
	var newLater []persistence.NodeRegistration
	for _, p := range later {
		if !r.warned[p.Owner] {
			r.warned[p.Owner] = true
			newLater = append(newLater, p)
		}
	}
	r.mu.Unlock()

	log := r.n.opts.Logger
	if logRefuse {
		log.Error("this node REFUSES TO SERVE: "+describePeers(blocking)+" share(s) this node's Redis store and key prefix without being a member of its cluster, and registered earlier. "+
			"Nodes that share a store but not a cluster take each group's activation from each other over and over. "+
			"Fix: make them one cluster (same cluster.name; cluster.provider automanaged with cluster.seeds listing every node, or kubernetes), "+
			"or give each deployment its own store.key-prefix. Until then this node answers heartbeats RETRY, other group routes 503 and health DOWN, and serves again once the other node(s) are gone",
			slog.String("self", describe(self)), slog.Int("conflicts", len(blocking)))
	}
	if was && !refuse {
		log.Info("node conflict resolved: no earlier node outside this node's cluster shares the store any more; serving again")
	}
	if len(newLater) > 0 {
		log.Warn(describePeers(newLater)+" share(s) this node's Redis store and key prefix without being a member of its cluster; it registered later and should refuse to serve (see its log and health). "+
			"This node keeps serving. Fix: one cluster (cluster.provider, cluster.seeds) or one store.key-prefix per deployment",
			slog.String("self", describe(self)))
	}
	if m := r.n.opts.Metrics; m != nil {
		m.NodeConflicts(len(counted), refuse)
	}
	if refuse {
		r.n.opts.Groups.Release()
	}
}

// holdSweep reports whether the sweep should not activate groups now: the
// node refuses to serve, or may be about to (an earlier conflicting peer is
// within its grace). Deferring a sweep costs nothing; activating groups only
// to release them a few rounds later would fence the earlier node's.
func (r *registry) holdSweep() bool { return r.refusing.Load() || r.suspect.Load() }

// HoldsSweep reports whether the host's sweep should activate no group now
// (registry.holdSweep).
func (n *Node) HoldsSweep() bool { return n.reg.holdSweep() }

// Conflict is the health view of the node registry (nil when no conflict
// counts).
func (n *Node) Conflict() *protocol.NodeConflict { return n.reg.report() }

// Registrations returns this node's registration and the other live ones of
// the last successful round (the cluster view of the registry).
func (n *Node) Registrations() []persistence.NodeRegistration {
	r := n.reg
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []persistence.NodeRegistration
	if r.self.Owner != "" {
		out = append(out, r.self)
	}
	return append(out, r.peers...)
}

// reason is the one-line why of a refusal.
func (r *registry) reason() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reasonLocked()
}

// reasonLocked is reason with r.mu held.
func (r *registry) reasonLocked() string {
	if len(r.blocking) == 0 {
		return "the node that shared its store without being in its cluster is gone; it serves again within " + fmt.Sprint(resumeRounds) + " renewal rounds"
	}
	return describePeers(r.blocking) + " share(s) its Redis store and key prefix without being in its cluster and registered earlier; " +
		"form one cluster (cluster.provider, cluster.seeds) or give each deployment its own store.key-prefix (see docs/OPERATIONS.md)"
}

// report is the health view (nil when no conflict counts).
func (r *registry) report() *protocol.NodeConflict {
	r.mu.Lock()
	defer r.mu.Unlock()
	refusing := r.refusing.Load()
	if len(r.counted) == 0 && !refusing {
		return nil
	}
	out := &protocol.NodeConflict{Refusing: refusing, Since: r.since.UTC().Format(time.RFC3339Nano), Peers: []protocol.ConflictPeer{}}
	for _, p := range r.counted {
		out.Peers = append(out.Peers, protocol.ConflictPeer{
			NodeID: p.NodeID, Owner: p.Owner, ClusterName: p.ClusterName, Provider: p.Provider, Address: p.Address,
			RegisteredAt: p.RegisteredAt.UTC().Format(time.RFC3339Nano), Earlier: p.Before(r.self), Refusing: p.Refusing,
		})
	}
	if out.Refusing {
		out.Reason = "this node refuses to serve: " + r.reasonLocked()
	} else {
		out.Reason = "node(s) share this node's Redis store and key prefix without being members of its cluster; they registered later or refuse to serve themselves, so this node serves"
	}
	return out
}

func ownersOf(p []persistence.NodeRegistration) string {
	o := make([]string, len(p))
	for i, r := range p {
		o[i] = r.Owner
	}
	sort.Strings(o)
	return strings.Join(o, ",")
}

// describe names one registration for a log line.
func describe(p persistence.NodeRegistration) string {
	addr := p.Address
	if addr == "" {
		addr = "none"
	}
	return fmt.Sprintf("node %s (owner %s, cluster.provider %s, cluster.name %q, cluster address %s, registered %s)",
		p.NodeID, p.Owner, p.Provider, p.ClusterName, addr, p.RegisteredAt.UTC().Format(time.RFC3339Nano))
}

func describePeers(ps []persistence.NodeRegistration) string {
	d := make([]string, len(ps))
	for i, p := range ps {
		d[i] = describe(p)
	}
	return strings.Join(d, "; ")
}
