package reshard

import (
	"bytes"
	"net"
	"sync"
	"testing"
	"time"
)

// redisProxy forwards TCP connections to a redis-server and can cut them:
// at once (Cut), or when a client sends a command naming a marker (Arm),
// in which case that command is not forwarded. While cut, every connection
// is closed and new ones are refused, as if Redis were down; Restore lets
// connections through again.
type redisProxy struct {
	ln       net.Listener
	upstream string

	mu         sync.Mutex
	conns      map[net.Conn]bool
	cut        bool
	marker     []byte
	cuts       int
	cutAt      time.Time // when the last cut happened
	restoredAt time.Time // when the last Restore happened
}

func startRedisProxy(t *testing.T, upstream string) *redisProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &redisProxy{ln: ln, upstream: upstream, conns: map[net.Conn]bool{}}
	go p.accept()
	t.Cleanup(func() {
		_ = ln.Close()
		p.Cut()
	})
	return p
}

// Addr is the proxy's host:port.
func (p *redisProxy) Addr() string { return p.ln.Addr().String() }

func (p *redisProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.cut
		p.mu.Unlock()
		if cut {
			_ = c.Close()
			continue
		}
		u, err := net.Dial("tcp", p.upstream)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[u] = true, true
		p.mu.Unlock()
		go p.pipe(c, u, true)
		go p.pipe(u, c, false)
	}
}

// pipe copies from src to dst; client→server data is searched for the
// armed marker (with the tail of the previous read, so a marker split
// across reads is found).
func (p *redisProxy) pipe(src, dst net.Conn, fromClient bool) {
	defer func() {
		_ = src.Close()
		_ = dst.Close()
	}()
	buf := make([]byte, 32<<10)
	var tail []byte
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if fromClient && p.hit(append(tail, buf[:n]...)) {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
			if fromClient {
				keep := min(n, 64)
				tail = append(tail[:0], buf[n-keep:n]...)
			}
		}
		if err != nil {
			return // EOF or a closed connection: both ends close
		}
	}
}

// hit reports whether data holds the armed marker; if so it cuts.
func (p *redisProxy) hit(data []byte) bool {
	p.mu.Lock()
	m := p.marker
	p.mu.Unlock()
	if m == nil || !bytes.Contains(data, m) {
		return false
	}
	p.Cut()
	return true
}

// Arm cuts the proxy when a client next sends marker.
func (p *redisProxy) Arm(marker string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marker = []byte(marker)
}

// Cut closes every connection and refuses new ones until Restore.
func (p *redisProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.cut {
		p.cuts++
		p.cutAt = time.Now()
	}
	p.cut, p.marker = true, nil
	for c := range p.conns {
		_ = c.Close()
	}
	p.conns = map[net.Conn]bool{}
}

// Restore lets connections through again.
func (p *redisProxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
	p.restoredAt = time.Now()
}

// Cuts counts the cuts so far.
func (p *redisProxy) Cuts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cuts
}

// RestoredAt is when Restore last let connections through.
func (p *redisProxy) RestoredAt() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.restoredAt
}
