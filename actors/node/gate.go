package node

import (
	"time"

	"github.com/redisstream/coordinator/persistence"
)

// The rejoin gate's rules (docs/RELIABILITY.md, "A node rejoining"), pure:
// no I/O, the time is an input. placement.go gathers the inputs.

// Placement is what this node's member list says about one group
// (Cluster.Placement). The maps are shared and never written after the
// Placement is built.
type Placement struct {
	// Self is this node's cluster address.
	Self string
	// Owner is the member address this node's list places the group on;
	// "" before the first member list (the gate is off).
	Owner string
	// ChangedAt is when this node's member list last changed (its first list
	// counts: a node that just started has just changed its list).
	ChangedAt time.Time
	// Listed maps member id → address for every member of this node's list.
	Listed map[string]string
	// Departed holds the member ids this node saw leave its list (and not come back).
	Departed map[string]bool
}

// holder is who holds a group's current activation, as this node can tell.
type holder int

const (
	// holderNone: nobody this node must wait for — never activated,
	// released, this incarnation, a previous incarnation of this node id
	// (dead: this process holds the id), or the store read failed (fencing
	// decides).
	holderNone holder = iota
	// holderGone: another node's incarnation that is not serving — its
	// registration expired, it refuses, this node saw it leave its member
	// list (also: it evicted it), or a newer process is listed at its address.
	holderGone
	// holderLive: another node's live, serving incarnation that this node
	// lists, or has not listed yet (a node that just started does not list
	// every peer at once).
	holderLive
	// holderUnknown: another node's incarnation, and this node has not read
	// the registry yet (its first round did not complete).
	holderUnknown
)

// verdict is the gate's answer for one group actor starting on this node.
type verdict int

const (
	activate        verdict = iota
	placedElsewhere         // RETRY: this node's list places the group on another member
	waitForHolder           // RETRY: a live holder on a reachable node has not handed it over yet
)

// gateInput is everything the gate decides on but the holder.
type gateInput struct {
	Now time.Time
	// Window is the settle window (Options.ClusterSettle): how long lists
	// may disagree, and the longest the gate holds one group here.
	Window    time.Duration
	Placement Placement
	// Refusing is when this node began answering RETRY for the group in the
	// current episode (zero: not refusing it). See episodes.
	Refusing time.Time
}

// decide is the gate. holder is called (one store read) only when the verdict
// depends on it. The rules, in order:
//
//  1. no member list yet: activate (single mode, or before the first list);
//  2. this node has refused the group for Window already: activate — the
//     gate never keeps a group unserved past the settle window, whatever the
//     lists say (fencing keeps two activations safe);
//  3. this node's list places the group on another member: RETRY (a node
//     whose list differs sent the request; the lists converge);
//  4. this node's list has not changed for Window: activate (nothing moved
//     the group here recently: nobody to wait for);
//  5. the group's activation is live on a reachable node, or this node cannot
//     tell yet: RETRY — that node still places the group on itself and
//     releases it, with its members' timers, when its list moves it here;
//  6. activate.
func decide(in gateInput, holderOf func() holder) verdict {
	p := in.Placement
	switch {
	case p.Owner == "":
		return activate
	case !in.Refusing.IsZero() && in.Now.Sub(in.Refusing) >= in.Window:
		return activate
	case p.Owner != p.Self:
		return placedElsewhere
	case in.Now.Sub(p.ChangedAt) >= in.Window:
		return activate
	}
	if h := holderOf(); h == holderLive || h == holderUnknown {
		return waitForHolder
	}
	return activate
}

// peerHolder classifies the stored owner's registration: peer is its live
// registration (found false: none, it expired). A member this node evicted
// left its list: departed.
func peerHolder(peer persistence.NodeRegistration, found bool, p Placement) holder {
	if !found || peer.Refusing {
		return holderGone
	}
	if peer.MemberID != "" {
		if _, ok := p.Listed[peer.MemberID]; ok {
			return holderLive
		}
		if p.Departed[peer.MemberID] {
			return holderGone
		}
	}
	for id, addr := range p.Listed {
		if addr == peer.Address && addr != "" {
			if peer.MemberID == "" || peer.MemberID == id {
				return holderLive
			}
			return holderGone // a newer process at its address: it restarted
		}
	}
	return holderLive // not listed yet
}

// episodes tracks, per group, since when this node answers RETRY for it: an
// episode starts at a refusal, goes on while refusals follow each other
// within the window, and ends when the group activates here. Callers hold
// their own lock.
type episodes struct {
	m         map[persistence.GroupKey]episode
	lastPrune time.Time
}

type episode struct{ first, last time.Time }

// since is when the group's current episode began (zero: none).
func (e *episodes) since(key persistence.GroupKey, now time.Time, window time.Duration) time.Time {
	ep, ok := e.m[key]
	if !ok || now.Sub(ep.last) >= window {
		return time.Time{}
	}
	return ep.first
}

// note records the verdict for the group at now.
func (e *episodes) note(key persistence.GroupKey, v verdict, now time.Time, window time.Duration) {
	if v == activate {
		delete(e.m, key)
		return
	}
	if e.m == nil {
		e.m = map[persistence.GroupKey]episode{}
	}
	ep, ok := e.m[key]
	if !ok || now.Sub(ep.last) >= window {
		ep.first = now
	}
	ep.last = now
	e.m[key] = ep
	if now.Sub(e.lastPrune) >= window {
		e.lastPrune = now
		for k, old := range e.m {
			if now.Sub(old.last) >= window {
				delete(e.m, k)
			}
		}
	}
}
