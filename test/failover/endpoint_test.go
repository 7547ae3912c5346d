package failover

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// endpoint is one fixed address in front of whichever Redis is the primary
// now, as a managed Redis' primary endpoint (a DNS name the provider moves
// at a failover): a new connection goes to the current target; connections
// already open stay where they were.
type endpoint struct {
	ln     net.Listener
	mu     sync.Mutex
	target string
}

func startEndpoint(t *testing.T, target string) *endpoint {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	e := &endpoint{ln: ln, target: target}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go e.forward(c)
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); <-done })
	return e
}

func (e *endpoint) Addr() string { return e.ln.Addr().String() }

// moveTo sends new connections to target.
func (e *endpoint) moveTo(target string) {
	e.mu.Lock()
	e.target = target
	e.mu.Unlock()
}

func (e *endpoint) forward(c net.Conn) {
	e.mu.Lock()
	target := e.target
	e.mu.Unlock()
	up, err := net.DialTimeout("tcp", target, time.Second)
	if err != nil {
		_ = c.Close()
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	pipe := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src) // either side closing or resetting ends the pair
		_ = dst.Close()
		_ = src.Close()
	}
	go pipe(up, c)
	go pipe(c, up)
	wg.Wait()
}

// A primary that moves under one fixed address (a managed endpoint): the
// old primary becomes a replica and the address now leads to the new one.
// Connections still open to the old primary get READONLY; the clients close
// them at that reply and dial the address again, which reaches the new
// primary. The coordinator, two SDK consumers and the producers heal
// without a restart, as with Sentinel (TestSentinelFailoverHeals).
func TestPrimaryMovedUnderOneAddressIsFollowed(t *testing.T) {
	node := []string{"--repl-diskless-sync-delay", "0", "--replica-announce-ip", "127.0.0.1"}
	a := redistest.StartWithOptions(t, redistest.Options{Args: node})
	b := redistest.StartWithOptions(t, redistest.Options{Args: append([]string{"--replicaof", "127.0.0.1", portOf(a.Addr())}, node...)})
	waitInSync(t, a, 1)
	ep := startEndpoint(t, a.Addr())
	w := startWorld(t, membersdk.RedisOptions{Addrs: []string{ep.Addr()}}, ep.Addr(), map[string]string{})

	primary, replica := a, b
	move := func() (string, string, time.Duration) {
		start := time.Now()
		ctx := context.Background()
		require.NoError(t, replica.Client().SlaveOf(ctx, "NO", "ONE").Err(), "promote %s", replica.Addr())
		ep.moveTo(replica.Addr())
		require.NoError(t, primary.Client().SlaveOf(ctx, "127.0.0.1", portOf(replica.Addr())).Err(), "demote %s", primary.Addr())
		from, to := primary.Addr(), replica.Addr()
		primary, replica = replica, primary
		waitInSync(t, primary, 1) // store.wait-replicas 1 and WaitReplicas 1 need the replica back
		return from, to, time.Since(start)
	}
	w.exercise([]failover{{"endpoint moved", move}, {"endpoint moved back", move}})
	require.LessOrEqual(t, strings.Count(w.coord.Logs(), "Redis answers but refuses writes"), 2,
		"at most one WARN per move:\n%s", w.coord.Logs())
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// waitInSync waits until primary p has n replicas online.
func waitInSync(t *testing.T, p *redistest.Server, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		info, err := p.Client().Info(context.Background(), "replication").Result()
		return err == nil && strings.Contains(info, "role:master") &&
			strings.Count(info, "state=online") >= n
	}, 20*time.Second, 50*time.Millisecond, "%s has %d replica(s) online", p.Addr(), n)
}
