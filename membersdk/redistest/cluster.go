package redistest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a Redis Cluster of masters (no replicas) on loopback, each a
// redis-server of its own, the 16384 slots split evenly between them. It
// makes clients meet the Cluster rules for real: a key sent to the wrong
// node answers MOVED, a script's keys must share a slot.
type Cluster struct {
	t     testing.TB
	Nodes []*Server
}

// StartCluster starts a Redis Cluster of n masters for t and waits until
// every node reports cluster_state:ok and knows every other one.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	if n < 1 {
		t.Fatalf("redistest: a cluster needs at least one node, got %d", n)
	}
	c := &Cluster{t: t}
	var buses []int
	for i := 0; i < n; i++ {
		bus, err := freePort()
		if err != nil {
			t.Fatalf("redistest: find free port: %v", err)
		}
		buses = append(buses, bus)
		// The bus port is set explicitly: the default (port+10000) can be
		// taken or beyond 65535 for an ephemeral port.
		c.Nodes = append(c.Nodes, StartWithOptions(t, Options{Args: []string{
			"--cluster-enabled", "yes", "--cluster-config-file", "{dir}/nodes.conf",
			"--cluster-port", strconv.Itoa(bus), "--cluster-node-timeout", "5000",
		}}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	per := 16384 / n
	for i, s := range c.Nodes {
		first, last := i*per, (i+1)*per-1
		if i == n-1 {
			last = 16383
		}
		if err := s.Client().Do(ctx, "cluster", "addslotsrange", first, last).Err(); err != nil {
			t.Fatalf("redistest: CLUSTER ADDSLOTSRANGE %d %d on %s: %v", first, last, s.Addr(), err)
		}
		if i > 0 {
			// With a bus port of its own, MEET must name it (Redis ≥ 7).
			if err := s.Client().Do(ctx, "cluster", "meet", "127.0.0.1", c.Nodes[0].Port(), buses[0]).Err(); err != nil {
				t.Fatalf("redistest: CLUSTER MEET from %s: %v", s.Addr(), err)
			}
		}
	}
	if err := c.waitFormed(ctx); err != nil {
		t.Fatalf("redistest: cluster of %d did not form: %v", n, err)
	}
	return c
}

// waitFormed polls every node until it reports cluster_state:ok and lists
// every node as a connected master.
func (c *Cluster) waitFormed(ctx context.Context) error {
	var last error
	for {
		if last = c.formed(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return last
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (c *Cluster) formed(ctx context.Context) error {
	for _, s := range c.Nodes {
		info, err := s.Client().ClusterInfo(ctx).Result()
		if err != nil {
			return err
		}
		if !strings.Contains(info, "cluster_state:ok") {
			return fmt.Errorf("%s: cluster_state not ok", s.Addr())
		}
		nodes, err := s.Client().ClusterNodes(ctx).Result()
		if err != nil {
			return err
		}
		if got := strings.Count(nodes, "master") - strings.Count(nodes, "fail"); got != len(c.Nodes) {
			return fmt.Errorf("%s knows %d of %d masters", s.Addr(), got, len(c.Nodes))
		}
		if strings.Count(nodes, " connected") != len(c.Nodes) {
			return fmt.Errorf("%s: not every node connected yet", s.Addr())
		}
	}
	return nil
}

// Addrs are the nodes' addresses, "127.0.0.1:port" each.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Nodes))
	for i, s := range c.Nodes {
		out[i] = s.Addr()
	}
	return out
}

// Client returns a new cluster client the caller owns (closed in t.Cleanup).
func (c *Cluster) Client() *redis.ClusterClient {
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
	c.t.Cleanup(func() { _ = cc.Close() })
	return cc
}
