package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redisstream/coordinator/internal/tlsfiles/testca"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// ClusterOptions configures N coordinator processes that form one
// automanaged actor host cluster on loopback.
type ClusterOptions struct {
	Nodes     int               // number of coordinator processes (default 3)
	RedisAddr string            // required: a real redis-server shared by every node
	Env       map[string]string // extra RSC_* settings for every node
	Args      []string          // extra flags for every node
	// Together launches every process at once and then waits for all of them
	// to answer (a cluster started together, as after a host reboot); by
	// default each node is started once the previous one answers.
	Together bool
	// NoWaitFormed returns as soon as every node answers its health route,
	// before the cluster is formed: the caller can use it while membership
	// converges, and calls WaitFormed itself.
	NoWaitFormed bool
	// Insecure runs the cluster ports without TLS (cluster.insecure). By
	// default every node gets a certificate of a CA made for the cluster
	// (cluster.tls.*), as a production cluster should.
	Insecure bool
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
	// CA signed the nodes' certificates (nil with Insecure); NodeTLS[i] are
	// node i's files, which a test may rotate (testca.WriteFile).
	CA      *testca.CA
	NodeTLS []testca.Files
}

// StartCluster starts o.Nodes coordinators as one automanaged cluster, over
// mutual TLS unless o.Insecure, and
// waits until it is formed (WaitFormed; not with o.NoWaitFormed). Every node is killed at test
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
		if o.Insecure {
			args = append(args, "--cluster.insecure=true")
		} else {
			if c.CA == nil {
				c.CA = testca.New(t, "rsc test cluster CA")
			}
			name := fmt.Sprintf("n%d", i+1)
			f := c.CA.Write(t, t.TempDir(), name, c.CA.Issue(t, name, testca.Options{}))
			c.NodeTLS = append(c.NodeTLS, f)
			args = append(args, "--cluster.tls.ca-file="+f.CA, "--cluster.tls.cert-file="+f.Cert, "--cluster.tls.key-file="+f.Key)
		}
		args = append(args, o.Args...)
		opts := Options{RedisAddr: o.RedisAddr, Env: o.Env, Args: args, Port: c.HTTPPorts[i]}
		if o.Together {
			c.Nodes = append(c.Nodes, launchCoordinator(t, opts))
			continue
		}
		start := time.Now()
		c.Nodes = append(c.Nodes, StartCoordinator(t, opts))
		t.Logf("cluster: n%d answering after %s", i+1, time.Since(start).Round(time.Millisecond))
	}
	if o.Together {
		start := time.Now()
		for _, n := range c.Nodes {
			n.waitAnswering()
		}
		t.Logf("cluster: %d nodes launched together, all answering after %s", o.Nodes, time.Since(start).Round(time.Millisecond))
	}
	if o.NoWaitFormed {
		return c
	}
	start := time.Now()
	if err := c.WaitFormed(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("cluster: formed %s after the last node answered", time.Since(start).Round(time.Millisecond))
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
// (/coord/v1/monitoring/ready answers 200) and, when health reports cluster
// members (protocol.HealthResponse.Cluster), every running node lists
// exactly the running nodes: as many members as there are, each node's own
// member id among them. A node restarted on its old address has a new
// member id, so a view that still holds its previous incarnation does not
// count as formed.
func (c *Cluster) WaitFormed(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := c.formed()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster not formed within %s: %w", timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// formed returns why the cluster is not formed yet (nil when it is).
func (c *Cluster) formed() error {
	var problems []string
	views := map[int]*protocol.ClusterHealth{}
	for i, n := range c.Nodes {
		if n.Exited() {
			continue
		}
		if !ready(n.URL()) {
			problems = append(problems, fmt.Sprintf("n%d not ready", i+1))
			continue
		}
		h, err := Health(n.URL())
		if err != nil {
			problems = append(problems, fmt.Sprintf("n%d health: %v", i+1, err))
			continue
		}
		views[i] = h.Cluster
	}
	for i, v := range views {
		if v == nil {
			continue // no cluster view: only readiness counts
		}
		ids := map[string]bool{}
		for _, m := range v.Members {
			ids[m.ID] = true
		}
		if len(ids) != len(views) {
			problems = append(problems, fmt.Sprintf("n%d sees %d members, %d nodes run", i+1, len(ids), len(views)))
		}
		for j, o := range views {
			if o != nil && !ids[o.Self.ID] {
				problems = append(problems, fmt.Sprintf("n%d does not see n%d (%s)", i+1, j+1, o.Self.ID))
			}
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
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

// Health reads the node's /coord/v1/monitoring/health.
func Health(base string) (protocol.HealthResponse, error) {
	var h protocol.HealthResponse
	resp, err := probe.Get(base + "/coord/v1/monitoring/health")
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(resp.Body).Decode(&h)
	return h, err
}

// freePorts returns n distinct free loopback ports (FreePort never hands
// out a port twice).
func freePorts(n int) ([]int, error) {
	out := make([]int, n)
	for i := range out {
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		out[i] = p
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
