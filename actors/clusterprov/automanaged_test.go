//go:build !race

// This file is left out of -race builds: protoactor-go (this version) reads
// remote.BlockList.blockedMembers without its lock (remote/blocklist.go:28,
// BlockedMembers) while the gossip actor replaces it under the lock (Block),
// so every multi-node cluster in one process trips the race detector inside
// the library, whatever the provider. Run it with
// `go test -count=1 ./actors/clusterprov/`.

package clusterprov

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/redisstream/coordinator/config"
)

// Three automanaged nodes on loopback find each other through their seeds,
// advertise reachable addresses (a grain request crosses nodes), and serve
// their health endpoint on cluster.host only.
func TestAutomanagedThreeNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three cluster nodes")
	}
	const n = 3
	ports, managePorts, seeds := make([]int, n), make([]int, n), make([]string, n)
	for i := range n {
		ports[i], managePorts[i] = freePort(t), freePort(t)
		seeds[i] = net.JoinHostPort("127.0.0.1", strconv.Itoa(managePorts[i]))
	}
	nodes := make([]*cluster.Cluster, n)
	var mu sync.Mutex
	seen := make([]int, n) // members in each node's latest topology
	for i := range n {
		o := Options{Provider: config.ProviderAutomanaged, Name: "rsc-test", Host: "127.0.0.1", Port: ports[i],
			ManagePort: managePorts[i], Seeds: seeds, RefreshInterval: 100 * time.Millisecond, Logger: quiet}
		// The options a valid configuration produces.
		cfg := config.Default()
		cfg.Cluster = config.Cluster{Name: o.Name, Provider: o.Provider, Host: o.Host, Port: o.Port, ManagePort: o.ManagePort, Seeds: seeds, NodeID: "n" + strconv.Itoa(i),
			TLS: cfg.Cluster.TLS, Insecure: true}
		require.NoError(t, cfg.Validate())
		nodes[i] = newNode(t, o)
		nodes[i].ActorSystem.EventStream.Subscribe(func(ev any) {
			if top, ok := ev.(*cluster.ClusterTopology); ok {
				mu.Lock()
				seen[i] = len(top.Members)
				mu.Unlock()
			}
		})
		require.NoError(t, StartMember(nodes[i]))
	}
	defer func() {
		var wg sync.WaitGroup
		for _, c := range nodes {
			wg.Add(1)
			go func() { defer wg.Done(); c.Shutdown(true) }()
		}
		wg.Wait()
	}()

	for i := range nodes {
		require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return seen[i] == n },
			20*time.Second, 50*time.Millisecond, "node %d sees all %d members", i, n)
	}

	// Health endpoint: the node model, on cluster.host:manage-port.
	resp, err := http.Get("http://" + seeds[1] + "/_health")
	require.NoError(t, err)
	var node automanaged.NodeModel
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&node))
	resp.Body.Close()
	assert.ElementsMatch(t, []string{"where", "prototopic"}, node.Kinds) // prototopic: protoactor's pub/sub kind
	node.Kinds = nil
	assert.Equal(t, automanaged.NodeModel{ID: nodes[1].ActorSystem.ID, Address: "127.0.0.1", Port: ports[1],
		AutoManagePort: managePorts[1], ClusterName: "rsc-test"}, node)
	if ip := nonLoopbackIP(); ip != "" {
		_, err := net.DialTimeout("tcp", net.JoinHostPort(ip, strconv.Itoa(managePorts[1])), time.Second)
		assert.Error(t, err, "the health endpoint must not listen on %s (upstream binds 0.0.0.0)", ip)
	}

	// Grains spread over the nodes: requests from node 0 are answered by others.
	hosts := map[string]bool{}
	for i := range 30 {
		res, err := nodes[0].Request("g"+strconv.Itoa(i), "where", wrapperspb.String("?"), cluster.WithTimeout(5*time.Second))
		require.NoError(t, err)
		hosts[res.(*wrapperspb.StringValue).GetValue()] = true
	}
	assert.Greater(t, len(hosts), 1, "30 identities all placed on one node: %v", hosts)
	for h := range hosts {
		assert.Contains(t, []string{"127.0.0.1:" + strconv.Itoa(ports[0]), "127.0.0.1:" + strconv.Itoa(ports[1]), "127.0.0.1:" + strconv.Itoa(ports[2])}, h)
	}
}

func nonLoopbackIP() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}
