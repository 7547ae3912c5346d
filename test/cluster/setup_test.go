package cluster

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// Timing of every test here: short, so a lease runs out within seconds and
// the package stays well within 90 s.
const (
	prefix       = "orders"
	groupName    = "workers"
	heartbeat    = 200 * time.Millisecond
	lease        = 3 * time.Second // takeover wait lease/6 + a loaded race-built node stay within the self-fence margin
	rebalance    = 2 * time.Second
	attemptLimit = time.Second     // one heartbeat request (a paused node never answers)
	beatWithin   = 8 * time.Second // one heartbeat, failing over between nodes
)

var timing = map[string]string{
	"RSC_COORDINATION_HEARTBEAT_INTERVAL": heartbeat.String(),
	"RSC_COORDINATION_MEMBER_LEASE_TTL":   lease.String(),
	"RSC_COORDINATION_REBALANCE_TIMEOUT":  rebalance.String(),
	"RSC_LOG_LEVEL":                       "info",
}

// world is a redis-server, a 3-node cluster, one stream and the oracle.
type world struct {
	t      *testing.T
	redis  *redistest.Server
	cl     *harness.Cluster
	oracle *Oracle
	shards int
}

func startWorld(t *testing.T, shards int) *world { return startWorldWith(t, shards, nil) }

// startWorldWith is startWorld with extra RSC_* settings on every node.
func startWorldWith(t *testing.T, shards int, extra map[string]string) *world {
	t.Helper()
	if testing.Short() {
		t.Skip("cluster: three coordinator processes, not in -short")
	}
	r := redistest.Start(t)
	start := time.Now()
	env := map[string]string{}
	for k, v := range timing {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	cl := harness.StartCluster(t, harness.ClusterOptions{Nodes: 3, RedisAddr: r.Addr(), Env: env})
	t.Logf("cluster of %d nodes formed in %s (cluster core: %v)", len(cl.Nodes), time.Since(start).Round(time.Millisecond), cl.ManagePort)
	w := &world{t: t, redis: r, cl: cl, oracle: &Oracle{}, shards: shards}
	harness.NewClient(cl.Nodes[0].URL()).CreateStream(t, prefix, shards)
	t.Cleanup(func() {
		for i, n := range cl.Nodes {
			ours, upstream := races(n.Logs())
			if len(ours)+upstream > 0 {
				t.Logf("n%d (race-built) reported %d data race(s) inside protoactor-go only and %d with this module's code in a stack", i+1, upstream, len(ours))
			}
			if len(ours) > 0 {
				t.Logf("n%d: racing accesses in this module: %s; the first report:\n%s", i+1, strings.Join(ourFrames(ours), ", "), ours[0])
			}
		}
		if t.Failed() {
			t.Logf("exchanges (last 30):\n%s", describeExchanges(w.oracle.Exchanges(), 30))
		}
	})
	return w
}

// member returns a member that sends to node start first.
func (w *world) member(id string, start int) *harness.FailoverMember {
	m := harness.NewFailoverMember(w.cl.URLs(), start, attemptLimit, prefix, groupName, id)
	m.Observe = w.oracle.Record
	return m
}

// beat sends one heartbeat of m (failing over), failing the test if no
// node answers.
func (w *world) beat(m *harness.FailoverMember) protocol.HeartbeatResponse {
	w.t.Helper()
	r, err := m.Beat(beatWithin)
	if err != nil {
		w.t.Fatalf("%s: %v", m.ID, err)
	}
	return r
}

// groupView reads the group's monitoring view from the first node that
// answers.
func (w *world) groupView() (protocol.GroupResponse, bool) {
	for _, n := range w.cl.Nodes {
		if n.Exited() {
			continue
		}
		c := harness.NewClient(n.URL())
		c.HTTP = &http.Client{Timeout: time.Second}
		var g protocol.GroupResponse
		if st, _, err := c.Do("GET", "/coord/v1/monitoring/streams/"+prefix+"/groups/"+groupName, nil, &g); err == nil && st == 200 {
			return g, true
		}
	}
	return protocol.GroupResponse{}, false
}

// checkOracle fails the test on any overlap or epoch regression up to end,
// and logs what the oracle measured.
func (w *world) checkOracle(end time.Time) []Interval {
	w.t.Helper()
	ex := w.oracle.Exchanges()
	iv := Intervals(ex, end)
	overlaps, regressions := Overlaps(iv), Regressions(ex)
	answered, retries, failed := 0, 0, 0
	for _, e := range ex {
		switch {
		case !e.Answered():
			failed++
		case e.Response.Status == protocol.StatusRetry:
			retries++
		default:
			answered++
		}
	}
	w.t.Logf("oracle: %d exchanges (%d answered, %d RETRY, %d failed), %d read intervals, %d overlaps, %d epoch regressions",
		len(ex), answered, retries, failed, len(iv), len(overlaps), len(regressions))
	for _, o := range overlaps {
		w.t.Errorf("single owner violated: %s", o)
	}
	for _, r := range regressions {
		w.t.Errorf("epoch went backwards: %s", r)
	}
	return iv
}

// debugView is the part of /debug/actors used here: this node's group
// actors, and (clustered) every node's activations.
type debugView struct {
	NodeID string `json:"nodeId"`
	Groups []struct {
		Group           string `json:"group"`
		NodeID          string `json:"nodeId"`
		Active          bool   `json:"active"`
		ActivationEpoch int64  `json:"activationEpoch"`
	} `json:"groups"`
	Cluster []struct {
		NodeID      string `json:"nodeId"`
		Address     string `json:"address"`
		Activations []struct {
			Group           string `json:"group"`
			ActivationEpoch int64  `json:"activationEpoch"`
		} `json:"activations"`
	} `json:"cluster"`
}

var nodeIDPattern = regexp.MustCompile(`^n(\d+)$`)

// nodeIndex maps a node id ("nK", as the harness names them) or a remote
// address to the node's index; def when neither matches.
func (w *world) nodeIndex(nodeID, address string, def int) int {
	if m := nodeIDPattern.FindStringSubmatch(nodeID); m != nil {
		k, _ := strconv.Atoi(m[1])
		if k >= 1 && k <= len(w.cl.Nodes) {
			return k - 1
		}
	}
	for i, p := range w.cl.RemotePorts {
		if strings.HasSuffix(address, ":"+strconv.Itoa(p)) {
			return i
		}
	}
	return def
}

// hostingNode finds the node hosting the group's live activation: the
// activation with the highest epoch that any node's /debug/actors lists,
// in its own group actors or in its cluster view. It returns the node
// index and the activation epoch.
func (w *world) hostingNode() (int, int64, error) {
	best, bestEpoch := -1, int64(-1)
	var seen []string
	consider := func(idx int, epoch int64, how string) {
		seen = append(seen, fmt.Sprintf("%s: n%d at activation %d", how, idx+1, epoch))
		if idx >= 0 && epoch > bestEpoch {
			best, bestEpoch = idx, epoch
		}
	}
	for i, n := range w.cl.Nodes {
		if n.Exited() {
			continue
		}
		c := harness.NewClient(n.URL())
		c.HTTP = &http.Client{Timeout: 2 * time.Second}
		var v debugView
		st, body, err := c.Do("GET", "/debug/actors", nil, &v)
		if err != nil || st != 200 {
			seen = append(seen, fmt.Sprintf("n%d: %d %v %s", i+1, st, err, body))
			continue
		}
		for _, g := range v.Groups {
			if g.Group == prefix+"/"+groupName && g.Active {
				consider(w.nodeIndex(g.NodeID, "", i), g.ActivationEpoch, fmt.Sprintf("n%d's actors", i+1))
			}
		}
		for _, cn := range v.Cluster {
			for _, a := range cn.Activations {
				if a.Group == prefix+"/"+groupName {
					consider(w.nodeIndex(cn.NodeID, cn.Address, -1), a.ActivationEpoch, fmt.Sprintf("n%d's cluster view (%s %s)", i+1, cn.NodeID, cn.Address))
				}
			}
		}
	}
	if best < 0 {
		return -1, 0, fmt.Errorf("no node lists an active %s/%s: %s", prefix, groupName, strings.Join(seen, "; "))
	}
	w.t.Logf("hosting node: n%d (activation %d); %s", best+1, bestEpoch, strings.Join(seen, "; "))
	return best, bestEpoch, nil
}

// waitUntil polls cond every 100ms until it holds or timeout passes.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
