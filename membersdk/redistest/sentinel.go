package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// SentinelMaster is the name the Sentinels of StartSentinels monitor.
const SentinelMaster = "mymaster"

// Sentinels is a Redis primary with two replicas, monitored by three
// Sentinels (quorum 2) that fail over after 1 s without an answer: real
// failovers for tests. Two replicas, so that the new primary has one at once
// after a failover (the Sentinels reconfigure the other replica right away,
// the old primary only about 8 s later, or when it comes back). Roles move with each failover; ask Primary which node is the
// primary now.
type Sentinels struct {
	t testing.TB
	// Nodes are the primary at start and its two replicas.
	Nodes []*Server
	// Sentinel are the three Sentinel processes.
	Sentinel []*Server

	conf string // the Sentinels' configuration
}

// ExtraSentinel starts one more Sentinel of the same primary, not in
// Sentinel, with extra configuration lines (e.g. "requirepass x"): for a
// Sentinel that differs from the others. A password it requires is needed
// to ask it anything, PING included, so it is not waited for.
func (s *Sentinels) ExtraSentinel(extra string) *Server {
	s.t.Helper()
	return StartWithOptions(s.t, Options{sentinel: s.conf + extra + "\n", noPing: true})
}

// StartSentinels starts the primary, the replicas and the Sentinels, and
// returns once the Sentinels agree on the primary, see its replicas and
// each other (SENTINEL CKQUORUM), so that a failover can be authorised.
func StartSentinels(t testing.TB) *Sentinels {
	t.Helper()
	// No 5 s wait before a full sync (repl-diskless-sync-delay). A primary
	// takes writes only while a replica is connected (min-replicas-to-write):
	// a demoted primary the Sentinels have not reconfigured yet (they wait
	// about 8 s) refuses writes instead of taking and later discarding them.
	node := []string{"--replica-announce-ip", "127.0.0.1", "--repl-diskless-sync-delay", "0",
		"--min-replicas-to-write", "1", "--min-replicas-max-lag", "10"}
	primary := StartWithOptions(t, Options{Args: node})
	s := &Sentinels{t: t, Nodes: []*Server{primary}}
	for i := 0; i < 2; i++ {
		s.Nodes = append(s.Nodes, StartWithOptions(t, Options{Args: append([]string{"--replicaof", "127.0.0.1", strconv.Itoa(primary.Port())}, node...)}))
	}
	conf := fmt.Sprintf("sentinel monitor %s 127.0.0.1 %d 2\n"+
		"sentinel down-after-milliseconds %[1]s 1000\n"+
		"sentinel failover-timeout %[1]s 10000\n"+
		"sentinel parallel-syncs %[1]s 1\n"+
		"sentinel announce-ip 127.0.0.1\n", SentinelMaster, primary.Port())
	s.conf = conf
	for i := 0; i < 3; i++ {
		s.Sentinel = append(s.Sentinel, StartWithOptions(t, Options{sentinel: conf}))
	}
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		if err = s.ready(); err == nil {
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("redistest: the Sentinels did not agree on %s within 30s: %v", SentinelMaster, err)
	return nil
}

// ready: every Sentinel sees the replica and reaches the quorum.
func (s *Sentinels) ready() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, sn := range s.Sentinel {
		c := redis.NewSentinelClient(&redis.Options{Addr: sn.Addr(), MaxRetries: -1})
		reps, err := c.Replicas(ctx, SentinelMaster).Result()
		if err == nil && len(reps) < 2 {
			err = fmt.Errorf("sentinel %s sees %d of 2 replicas", sn.Addr(), len(reps))
		}
		if err == nil {
			err = c.CkQuorum(ctx, SentinelMaster).Err()
		}
		_ = c.Close()
		if err != nil {
			return fmt.Errorf("sentinel %s: %w", sn.Addr(), err)
		}
	}
	return nil
}

// SentinelAddrs are the Sentinels' host:port.
func (s *Sentinels) SentinelAddrs() []string {
	out := make([]string, len(s.Sentinel))
	for i, sn := range s.Sentinel {
		out[i] = sn.Addr()
	}
	return out
}

// Primary is the node the Sentinels name as the primary now ("" if none
// answers).
func (s *Sentinels) Primary() string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, sn := range s.Sentinel {
		if !sn.Running() {
			continue
		}
		c := redis.NewSentinelClient(&redis.Options{Addr: sn.Addr(), MaxRetries: -1})
		addr, err := c.GetMasterAddrByName(ctx, SentinelMaster).Result()
		_ = c.Close()
		if err == nil && len(addr) == 2 {
			return net.JoinHostPort(addr[0], addr[1])
		}
	}
	return ""
}

// Node is the data node at addr (nil if none).
func (s *Sentinels) Node(addr string) *Server {
	for _, n := range s.Nodes {
		if n.Addr() == addr {
			return n
		}
	}
	return nil
}

// Failover asks a Sentinel to promote the replica (SENTINEL FAILOVER) and
// waits until the new primary accepts writes. It returns the old and new
// primary and the time from the request to the first accepted write.
func (s *Sentinels) Failover() (from, to string, took time.Duration) {
	s.t.Helper()
	from = s.Primary()
	start := time.Now()
	c := redis.NewSentinelClient(&redis.Options{Addr: s.Sentinel[0].Addr(), MaxRetries: -1})
	defer c.Close()
	if err := c.Failover(context.Background(), SentinelMaster).Err(); err != nil {
		s.t.Fatalf("redistest: SENTINEL FAILOVER %s: %v", SentinelMaster, err)
	}
	to = s.waitPromoted(from)
	return from, to, time.Since(start)
}

// KillPrimary kills the primary (SIGKILL) and waits until the Sentinels
// promoted the replica and it accepts writes. The killed node stays down
// (Node(from).Restart brings it back as a replica of the new primary once a
// Sentinel reconfigures it).
func (s *Sentinels) KillPrimary() (from, to string, took time.Duration) {
	s.t.Helper()
	from = s.Primary()
	n := s.Node(from)
	if n == nil {
		s.t.Fatalf("redistest: the Sentinels name %q as the primary, not a node of this set", from)
	}
	start := time.Now()
	n.Stop()
	to = s.waitPromoted(from)
	return from, to, time.Since(start)
}

// waitPromoted waits until the Sentinels name a primary other than old and
// it accepts a write.
func (s *Sentinels) waitPromoted(old string) string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if p := s.Primary(); p != "" && p != old {
			if n := s.Node(p); n != nil {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				err := n.Client().Set(ctx, "redistest:promoted", "1", time.Minute).Err()
				cancel()
				if err == nil {
					return p
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("redistest: no replica of %s promoted within 30s (primary named: %q)", old, s.Primary())
	return ""
}

// sentinelConf writes the Sentinel's configuration file at its first start
// and returns its path; a restart keeps what the Sentinel rewrote.
func (s *Server) sentinelConf() (string, error) {
	p := filepath.Join(s.dir, "sentinel.conf")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if err := os.WriteFile(p, []byte(s.sentinel), 0o600); err != nil {
		return "", fmt.Errorf("write sentinel configuration: %w", err)
	}
	return p, nil
}
