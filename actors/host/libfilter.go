package host

import (
	"log/slog"
	"strings"
	"sync/atomic"
	"time"
)

// Library lines expected in normal operation. The actor and cluster
// libraries log them at ERROR although nothing is wrong; our own lines say
// what matters (a peer joining or leaving, this node stopping). They are
// dropped and counted (rsc_log_lines_filtered_total{level,kind}).
//
//   - peer-health-poll: "Bad connection to the node health status" — the
//     automanaged provider polls every configured node's health port; a node
//     that has not started yet, or has stopped, does not answer. Nodes started
//     together see it for each other's first seconds.
//   - peer-connect: "EndpointWriter failed to connect" (or to create its
//     stream, send or receive the connect handshake) — a message to a node
//     that stopped (or is stopping) cannot be delivered; the sender times out
//     and our cluster code retries elsewhere.
//   - peer-lost: "EndpointWriter lost connection" — a peer's connection
//     closed, as it does when that peer stops; and "EndpointReader failed
//     to send ConnectResponse message" with "transport is closing" — a peer
//     connected just as this node or that peer was stopping (seen with two
//     nodes stopped together, more often over TLS under load).
//   - peer-gossip: "sendGossipForMember failed" — a gossip round to a peer
//     that is stopping (or stopped) times out; membership follows from the
//     next rounds and the peer's departure.
//   - grain-moved: "cluster.RequestFuture failed" with a dead letter — a
//     request reached a group grain's cached PID after that activation
//     stopped (moved when the member list changed, passivated, or fenced by
//     a newer one). The library drops the cached PID and retries with a fresh
//     lookup, as the router (actors/router) does; what the caller finally got is counted in
//     rsc's grain request metrics. Nothing in our code can avoid it: the
//     requesting node learns of the move only after the owner stopped the
//     grain. A timeout (the grain did not answer) is kept.
//   - health-server-closed: "Automanaged server stopping..!" with the error
//     http.ErrServerClosed — the provider's health server closed by a clean
//     shutdown (any other error, such as a port in use, is kept).
//
// The three peer kinds are dropped only when expected (libfilter_peers.go);
// otherwise they are logged at WARN once per peer per minute.
type libraryLine struct {
	msg, kind string
	errHas    string // "" = any; else the record's "error" attribute must contain it
	peer      bool   // a line about one peer: judged by peerTracker
}

var libraryLines = []libraryLine{
	{msg: "Bad connection to the node health status", kind: "peer-health-poll"},
	{msg: "EndpointWriter failed to connect", kind: "peer-connect", peer: true},
	{msg: "EndpointWriter failed to create receive stream", kind: "peer-connect", peer: true},
	{msg: "EndpointWriter failed to send connect request", kind: "peer-connect", peer: true},
	{msg: "EndpointWriter failed to receive connect response", kind: "peer-connect", peer: true},
	{msg: "EndpointWriter lost connection", kind: "peer-lost", peer: true},
	{msg: "EndpointReader failed to send ConnectResponse message", kind: "peer-lost", errHas: "transport is closing"},
	{msg: "sendGossipForMember failed", kind: "peer-gossip", peer: true},
	{msg: "cluster.RequestFuture failed", kind: "grain-moved", errHas: "dead letter"},
	{msg: "Automanaged server stopping..!", kind: "health-server-closed", errHas: "Server closed"},
}

// lineCounter receives the count of filtered lines (api/metrics implements it).
type lineCounter interface {
	LibraryLineFiltered(level, kind string)
}

// libFilter decides which library records are expected; counter is set once
// the host's metrics are known.
type libFilter struct {
	counter atomic.Pointer[lineCounter]
	peers   *peerTracker
}

func newLibFilter(now time.Time) *libFilter { return &libFilter{peers: newPeerTracker(now)} }

// countInto makes m count the filtered lines, if it can (api/metrics does).
func (f *libFilter) countInto(m any) {
	if c, ok := m.(lineCounter); ok {
		f.counter.Store(&c)
	}
}

// filter decides about library record r: keep=false drops it (counted).
// Otherwise out is what to log: r itself, or (rated=true) a peer line
// rewritten at WARN, already limited per peer.
func (f *libFilter) filter(r slog.Record) (out slog.Record, keep, rated bool) {
	for _, l := range libraryLines {
		if r.Message != l.msg || (l.errHas != "" && !errorContains(r, l.errHas)) {
			continue
		}
		if l.peer && f.peers != nil {
			if peer := peerOf(r); peer != "" {
				if v, dropped := f.peers.judge(peer, r.Time); v == peerWarn {
					return asPeerWarn(r, dropped), true, true
				}
			}
		}
		if c := f.counter.Load(); c != nil {
			(*c).LibraryLineFiltered(strings.ToLower(r.Level.String()), l.kind)
		}
		return r, false, false
	}
	return r, true, false
}

func errorContains(r slog.Record, s string) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "error" && strings.Contains(a.Value.String(), s) {
			found = true
			return false
		}
		return true
	})
	return found
}
