package host

import (
	"log/slog"
	"sync"
	"time"
)

// Peer lines: the library's "EndpointWriter failed to connect / lost
// connection" (and the gossip round that times out) say that a peer cannot be
// reached. In normal operation that is a peer that left the cluster, or this
// node or its peers starting or stopping; during a real failure (a peer
// crashed, a network partition) it is the only line naming the peer. So such
// a line is dropped and counted only when it is expected:
//
//   - this node started less than peerStartWindow ago (nodes started together
//     poll each other before every remote endpoint listens);
//   - this node is leaving the cluster (its peers, stopping with it, go too);
//   - the peer had already left this node's member list when the line came. A
//     node leaving gracefully leaves the member list first and shuts its
//     remote endpoint down only once every peer no longer lists it
//     (Host.leaveCluster), so its peers see it leave before its connection
//     drops; a crashed peer's connection drops first.
//
// Any other peer line is logged at WARN, at most once per peer per
// peerWarnEvery; the copies in between are counted (and the next WARN for
// that peer says how many were dropped).
const (
	peerStartWindow = 20 * time.Second
	peerWarnEvery   = time.Minute
	maxPeersTracked = 1000
)

// peerTracker keeps what decides a peer line: the peers that left the member
// list (by address and by cluster member id), when this node started, whether
// it is leaving, and when each peer's last WARN was logged.
type peerTracker struct {
	mu       sync.Mutex
	started  time.Time
	leaving  bool
	members  map[string]bool      // addresses and member ids in the last member list
	departed map[string]bool      // addresses and member ids that left the member list
	warned   map[string]time.Time // peer → last WARN
	dropped  map[string]int       // peer → lines dropped since its last WARN
}

func newPeerTracker(now time.Time) *peerTracker {
	return &peerTracker{started: now, members: map[string]bool{}, departed: map[string]bool{},
		warned: map[string]time.Time{}, dropped: map[string]int{}}
}

// tracker is f's peer tracker (nil for a host built without New, in tests).
func (f *libFilter) tracker() *peerTracker {
	if f == nil {
		return nil
	}
	return f.peers
}

// topology records a new member list: the keys (addresses and member ids)
// missing from it that were in the previous one have left; a key listed again
// (a restarted node on the same address) has not.
func (p *peerTracker) topology(keys []string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := make(map[string]bool, len(keys))
	for _, k := range keys {
		now[k] = true
		delete(p.departed, k)
	}
	for k := range p.members {
		if !now[k] {
			if len(p.departed) >= maxPeersTracked {
				p.departed = map[string]bool{}
			}
			p.departed[k] = true
		}
	}
	p.members = now
}

// leave records that this node began leaving the cluster.
func (p *peerTracker) leave() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.leaving = true
	p.mu.Unlock()
}

// peerVerdict is what to do with one peer line.
type peerVerdict int

const (
	peerDrop peerVerdict = iota // expected (or a repeat within peerWarnEvery): drop and count
	peerWarn                    // unexpected: log at WARN
)

// judge decides about a line on peer (an address or member id) at now. For
// peerWarn it also returns how many lines on that peer were dropped since its
// last WARN.
func (p *peerTracker) judge(peer string, now time.Time) (peerVerdict, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.leaving || now.Sub(p.started) < peerStartWindow || p.departed[peer] {
		return peerDrop, 0
	}
	if last, ok := p.warned[peer]; ok && now.Sub(last) < peerWarnEvery {
		p.dropped[peer]++
		return peerDrop, 0
	}
	if len(p.warned) >= maxPeersTracked {
		p.warned, p.dropped = map[string]time.Time{}, map[string]int{}
	}
	p.warned[peer] = now
	n := p.dropped[peer]
	delete(p.dropped, peer)
	return peerWarn, n
}

// peerOf returns the peer a library line is about: its "address" (endpoint
// writer) or "MemberId" (gossip) attribute.
func peerOf(r slog.Record) string {
	peer := ""
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "address" || a.Key == "MemberId" {
			peer = a.Value.String()
			return false
		}
		return true
	})
	return peer
}

// asPeerWarn is r at WARN, saying how many lines on the peer were dropped
// since the last one.
func asPeerWarn(r slog.Record, dropped int) slog.Record {
	out := slog.NewRecord(r.Time, slog.LevelWarn, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool { out.AddAttrs(a); return true })
	out.AddAttrs(slog.String("note", "a cluster peer that has not left the cluster cannot be reached; logged once per peer per minute"))
	if dropped > 0 {
		out.AddAttrs(slog.Int("repeatsDropped", dropped))
	}
	return out
}
