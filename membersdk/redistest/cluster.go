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
	// Replicas are the replicas of StartClusterWithReplicas: Replicas[i]
	// replicates Nodes[i] (at start; a failover swaps their roles).
	Replicas []*Server
}

// StartCluster starts a Redis Cluster of n masters for t and waits until
// every node reports cluster_state:ok and knows every other one.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	return startCluster(t, n, false)
}

// StartClusterWithReplicas is StartCluster with one replica per master, and
// a node timeout of 1 s: a master that stops answering is replaced by its
// replica within a few seconds, as after CLUSTER FAILOVER on the replica.
func StartClusterWithReplicas(t testing.TB, n int) *Cluster {
	t.Helper()
	return startCluster(t, n, true)
}

func startCluster(t testing.TB, n int, replicas bool) *Cluster {
	t.Helper()
	if n < 1 {
		t.Fatalf("redistest: a cluster needs at least one node, got %d", n)
	}
	c := &Cluster{t: t}
	var buses []int
	timeout := "5000"
	if replicas {
		timeout = "1000"
	}
	node := func() *Server {
		bus, err := FreePort()
		if err != nil {
			t.Fatalf("redistest: find free port: %v", err)
		}
		buses = append(buses, bus)
		// The bus port is set explicitly: the default (port+10000) can be
		// taken or beyond 65535 for an ephemeral port.
		return StartWithOptions(t, Options{Args: []string{
			"--cluster-enabled", "yes", "--cluster-config-file", "{dir}/nodes.conf",
			"--cluster-port", strconv.Itoa(bus), "--cluster-node-timeout", timeout,
			"--repl-diskless-sync-delay", "0",
		}})
	}
	for i := 0; i < n; i++ {
		c.Nodes = append(c.Nodes, node())
	}
	if replicas {
		for i := 0; i < n; i++ {
			c.Replicas = append(c.Replicas, node())
		}
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
	for i, r := range c.Replicas {
		if err := r.Client().Do(ctx, "cluster", "meet", "127.0.0.1", c.Nodes[0].Port(), buses[0]).Err(); err != nil {
			t.Fatalf("redistest: CLUSTER MEET from %s: %v", r.Addr(), err)
		}
		id, err := c.Nodes[i].Client().Do(ctx, "cluster", "myid").Text()
		if err != nil {
			t.Fatalf("redistest: CLUSTER MYID on %s: %v", c.Nodes[i].Addr(), err)
		}
		for { // the replica must know the master before it can replicate it
			err = r.Client().Do(ctx, "cluster", "replicate", id).Err()
			if err == nil || ctx.Err() != nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("redistest: CLUSTER REPLICATE %s on %s: %v", id, r.Addr(), err)
		}
	}
	if err := c.waitFormed(ctx); err != nil {
		t.Fatalf("redistest: cluster of %d did not form: %v", n, err)
	}
	return c
}

// Failover runs CLUSTER FAILOVER on Replicas[i] and waits until it is a
// master that accepts writes for its slots; it returns how long that took.
func (c *Cluster) Failover(i int) time.Duration {
	c.t.Helper()
	start := time.Now()
	r := c.Replicas[i]
	if err := r.Client().Do(context.Background(), "cluster", "failover").Err(); err != nil {
		c.t.Fatalf("redistest: CLUSTER FAILOVER on %s: %v", r.Addr(), err)
	}
	c.waitMaster(r)
	return time.Since(start)
}

// KillMaster kills Nodes[i] (SIGKILL) and waits until its replica took its
// slots over; it returns how long that took.
func (c *Cluster) KillMaster(i int) time.Duration {
	c.t.Helper()
	start := time.Now()
	c.Nodes[i].Stop()
	c.waitMaster(c.Replicas[i])
	return time.Since(start)
}

func (c *Cluster) waitMaster(r *Server) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		role, err := r.Client().Do(ctx, "role").Slice()
		cancel()
		if err == nil && len(role) > 0 && role[0] == "master" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("redistest: %s did not become a master within 30s", r.Addr())
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
	for _, s := range append(append([]*Server(nil), c.Nodes...), c.Replicas...) {
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
		if got := strings.Count(nodes, "slave"); got != len(c.Replicas) {
			return fmt.Errorf("%s knows %d of %d replicas", s.Addr(), got, len(c.Replicas))
		}
		if strings.Count(nodes, " connected") != len(c.Nodes)+len(c.Replicas) {
			return fmt.Errorf("%s: not every node connected yet", s.Addr())
		}
	}
	for _, r := range c.Replicas {
		info, err := r.Client().Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		if !strings.Contains(info, "master_link_status:up") {
			return fmt.Errorf("replica %s has not synchronised yet", r.Addr())
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
