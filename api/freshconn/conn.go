package freshconn

import (
	"net"
	"sync/atomic"
	"time"
)

// conn is an accepted connection that remembers whether it sent a byte.
type conn struct {
	net.Conn
	l    *Listener
	used atomic.Bool // a Read returned data
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.used.Load() {
		c.used.Store(true)
	}
	return n, err
}

// SetReadDeadline holds a fresh connection's deadline to the cutoff once
// CutFresh ran.
func (c *conn) SetReadDeadline(t time.Time) error { return c.Conn.SetReadDeadline(c.held(t)) }

// SetDeadline is SetReadDeadline and SetWriteDeadline.
func (c *conn) SetDeadline(t time.Time) error {
	if err := c.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	return c.Conn.SetReadDeadline(c.held(t))
}

func (c *conn) held(t time.Time) time.Time {
	cut := c.l.cutoff.Load()
	if cut == nil || c.used.Load() || (!t.IsZero() && t.Before(*cut)) {
		return t
	}
	return *cut
}

func (c *conn) Close() error {
	c.l.forget(c)
	return c.Conn.Close()
}
