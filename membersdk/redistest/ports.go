package redistest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// FreePort returns a loopback TCP port that nothing listens on, for a
// process a test starts and may restart on the same port.
//
// It picks from below the kernel's ephemeral range
// (net.ipv4.ip_local_port_range), never from it: a port the kernel handed
// out for "127.0.0.1:0" is handed out again as the source port of the next
// outgoing connection, so a server started on it a moment later (or
// restarted on it after a kill) can find it taken and fail with "address
// already in use". Below the range only other explicit picks compete, and
// they are random. A port is never returned twice by one test binary.
func FreePort() (int, error) {
	lo, hi := pickRange()
	handedMu.Lock()
	defer handedMu.Unlock()
	if lo > 0 {
		for range 200 {
			p := lo + rand.IntN(hi-lo+1)
			if handed[p] {
				continue
			}
			if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p))); err == nil {
				_ = l.Close()
				handed[p] = true
				return p, nil
			}
		}
	}
	// No room outside the ephemeral range (or 200 taken picks): let the
	// kernel choose.
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("redistest: no free loopback port: %w", err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if !handed[p] {
			handed[p] = true
			return p, nil
		}
	}
	return 0, fmt.Errorf("redistest: no free loopback port after 20 kernel picks")
}

var (
	handedMu sync.Mutex
	handed   = map[int]bool{}
)

// pickRange is the span of ports FreePort picks from: from 10000 up to just
// below the ephemeral range, or (0, 0) when that leaves fewer than 1000.
func pickRange() (lo, hi int) {
	first := 32768 // Linux's default when the setting cannot be read
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				first = n
			}
		}
	}
	if first-1-10000 < 1000 {
		return 0, 0
	}
	return 10000, first - 1
}
