package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// ClusterOptions configures N coordinator processes that form one
// automanaged actor host cluster on loopback.
type ClusterOptions struct {
	Nodes     int               // number of coordinator processes (default 3)
	RedisAddr string            // required: a real redis-server shared by every node
	Env       map[string]string // extra RSC_* settings for every node
	Args      []string          // extra flags for every node
}

// Cluster is N coordinator processes started as one automanaged cluster.
// Node i listens for HTTP on HTTPPorts[i], for actor remoting on
// RemotePorts[i] and for the automanaged membership protocol on
// ManagePorts[i]; every node's seeds list every node's manage port, its own
// included. Every port is picked before the first node starts and kept
// across restarts, so a restarted node comes back where its peers expect it.
type Cluster struct {
	t           testing.TB
	Nodes       []*Coordinator
	HTTPPorts   []int
	RemotePorts []int
	ManagePorts []int
	// ManagePort reports whether the coordinator binary knows
	// --cluster.manage-port (the cluster core). Without it the nodes are
	// started with the cluster settings it does know, and run as independent
	// nodes on one Redis.
	ManagePort bool
}

// StartCluster starts o.Nodes coordinators as one automanaged cluster and
// waits until it is formed (WaitFormed). Every node is killed at test
// cleanup.
func StartCluster(t testing.TB, o ClusterOptions) *Cluster {
	t.Helper()
	if o.Nodes == 0 {
		o.Nodes = 3
	}
	bin, err := Binary("coordinator")
	if err != nil {
		t.Fatal(err)
	}
	ports, err := freePorts(3 * o.Nodes)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{t: t, HTTPPorts: ports[:o.Nodes], RemotePorts: ports[o.Nodes : 2*o.Nodes],
		ManagePorts: ports[2*o.Nodes:], ManagePort: binaryKnowsFlag(bin, "cluster.manage-port")}
	if !c.ManagePort {
		t.Logf("cluster: the coordinator binary has no --cluster.manage-port: nodes run without a cluster core")
	}
	seeds := make([]string, o.Nodes)
	for i, p := range c.ManagePorts {
		seeds[i] = fmt.Sprintf("127.0.0.1:%d", p)
	}
	for i := 0; i < o.Nodes; i++ {
		args := []string{
			"--cluster.provider=automanaged",
			"--cluster.host=127.0.0.1",
			fmt.Sprintf("--cluster.port=%d", c.RemotePorts[i]),
			"--cluster.seeds=" + strings.Join(seeds, ","),
			fmt.Sprintf("--cluster.node-id=n%d", i+1),
		}
		if c.ManagePort {
			args = append(args, fmt.Sprintf("--cluster.manage-port=%d", c.ManagePorts[i]))
		}
		args = append(args, o.Args...)
		c.Nodes = append(c.Nodes, StartCoordinator(t, Options{RedisAddr: o.RedisAddr, Env: o.Env, Args: args, Port: c.HTTPPorts[i]}))
	}
	if err := c.WaitFormed(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	return c
}

// URLs are the nodes' base URLs, in node order.
func (c *Cluster) URLs() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.URL()
	}
	return out
}

// WaitFormed waits until every running node is ready
// (/coord/v1/monitoring/ready answers 200) and, when its health reports
// cluster members, reports as many as there are running nodes.
func (c *Cluster) WaitFormed(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var missing []string
		live := 0
		for _, n := range c.Nodes {
			if !n.Exited() {
				live++
			}
		}
		for i, n := range c.Nodes {
			if n.Exited() {
				continue
			}
			if !ready(n.URL()) {
				missing = append(missing, fmt.Sprintf("n%d not ready", i+1))
				continue
			}
			if k, ok := ClusterMembers(n.URL()); ok && k != live {
				missing = append(missing, fmt.Sprintf("n%d sees %d of %d members", i+1, k, live))
			}
		}
		if len(missing) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster not formed within %s: %s", timeout, strings.Join(missing, "; "))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var probe = &http.Client{Timeout: time.Second}

func ready(base string) bool {
	resp, err := probe.Get(base + "/coord/v1/monitoring/ready")
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// ClusterMembers returns how many cluster members the node at base reports
// in its health (/coord/v1/monitoring/health), and whether the health
// carries cluster members at all. It accepts {"cluster":{"members":[…]}}
// and {"clusterMembers":[…]}.
func ClusterMembers(base string) (int, bool) {
	resp, err := probe.Get(base + "/coord/v1/monitoring/health")
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var h map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return 0, false
	}
	var list []json.RawMessage
	if raw, ok := h["clusterMembers"]; ok && json.Unmarshal(raw, &list) == nil {
		return len(list), true
	}
	var cl struct {
		Members []json.RawMessage `json:"members"`
	}
	if raw, ok := h["cluster"]; ok && json.Unmarshal(raw, &cl) == nil && cl.Members != nil {
		return len(cl.Members), true
	}
	return 0, false
}

// freePorts returns n distinct free loopback ports.
func freePorts(n int) ([]int, error) {
	seen := map[int]bool{}
	var out []int
	for len(out) < n {
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

var (
	helpMu   sync.Mutex
	helpText = map[string]string{}
)

// binaryKnowsFlag reports whether bin's --help names flag.
func binaryKnowsFlag(bin, flag string) bool {
	helpMu.Lock()
	defer helpMu.Unlock()
	text, ok := helpText[bin]
	if !ok {
		cmd := exec.Command(bin, "--help")
		cmd.Env = environWithoutRSC()
		out, _ := cmd.CombinedOutput() // --help may exit non-zero
		text = string(out)
		helpText[bin] = text
	}
	return strings.Contains(text, "--"+flag)
}
