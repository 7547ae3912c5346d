package freshconn

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Listener is a net.Listener whose connections CutFresh can cut while they
// have not sent a byte. Use Wrap.
type Listener struct {
	net.Listener
	mu     sync.Mutex
	conns  map[*conn]struct{}
	cutoff atomic.Pointer[time.Time] // nil until CutFresh
}

// Wrap returns ln with its accepted connections tracked.
func Wrap(ln net.Listener) *Listener {
	return &Listener{Listener: ln, conns: map[*conn]struct{}{}}
}

// Accept accepts the next connection and tracks it; one accepted after
// CutFresh gets the same cutoff.
func (l *Listener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	c := &conn{Conn: nc, l: l}
	l.mu.Lock()
	l.conns[c] = struct{}{}
	l.mu.Unlock()
	if cut := l.cutoff.Load(); cut != nil {
		_ = nc.SetReadDeadline(*cut)
	}
	return c, nil
}

// CutFresh gives every connection that has not sent a byte until grace from
// now to start its request: after that its reads fail (a timeout) and the
// server closes it. Later read deadlines the server sets on such a
// connection are held to the same cutoff. Connections that sent something
// are not touched. It is meant to be called once, as shutdown begins.
func (l *Listener) CutFresh(grace time.Duration) {
	cut := time.Now().Add(grace)
	l.cutoff.Store(&cut)
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		if !c.used.Load() {
			_ = c.Conn.SetReadDeadline(cut)
		}
	}
}

// Tracked is the number of open connections accepted through l.
func (l *Listener) Tracked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

func (l *Listener) forget(c *conn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}
