package clusterbench

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

const (
	groups         = 10
	membersPerGrp  = 20
	shardsPerGroup = 16
	workers        = 32
)

func window() time.Duration {
	if os.Getenv("RSC_BENCH_QUICK") != "" {
		return 3 * time.Second
	}
	return 10 * time.Second
}

// TestClusterBenchmark is skipped unless RSC_BENCH_CLUSTER=1 (make
// bench-cluster): it takes about two minutes of a whole machine.
func TestClusterBenchmark(t *testing.T) {
	if os.Getenv("RSC_BENCH_CLUSTER") == "" {
		t.Skip("set RSC_BENCH_CLUSTER=1 (make bench-cluster) to run the cluster benchmark")
	}
	var base float64
	var tlsFwd *forwardCost
	for _, n := range []int{1, 2, 3} {
		rate, fwd := run(t, n, false)
		if n == 1 {
			base = rate
		}
		t.Logf("BENCH nodes=%d heartbeats/s=%.0f ratio-to-1-node=%.2f (mutual TLS between nodes)", n, rate, rate/base)
		if fwd != nil {
			t.Logf("BENCH nodes=%d %s", n, fwd)
			tlsFwd = fwd
		}
	}
	// The same 3-node cluster with plaintext cluster ports (cluster.insecure),
	// in the same run: what mutual TLS between nodes costs a forwarded
	// heartbeat.
	rate, plain := run(t, 3, true)
	t.Logf("BENCH nodes=3 heartbeats/s=%.0f ratio-to-1-node=%.2f (plaintext between nodes)", rate, rate/base)
	if plain != nil && tlsFwd != nil {
		t.Logf("BENCH nodes=3 plaintext %s", plain)
		t.Logf("BENCH nodes=3 forwarded-heartbeat-p50 mtls=%s plaintext=%s mtls/plaintext=%.2f forwarding-cost mtls=%s plaintext=%s",
			tlsFwd.forwarded, plain.forwarded, float64(tlsFwd.forwarded)/float64(plain.forwarded),
			tlsFwd.forwarded-tlsFwd.local, plain.forwarded-plain.local)
	}
}

// run starts n nodes (with mutual TLS between them unless insecure), joins
// every member, then drives steady heartbeats from workers goroutines spread
// over every node's URL for the window.
func run(t *testing.T, n int, insecure bool) (float64, *forwardCost) {
	redis := redistest.Start(t)
	cl := harness.StartCluster(t, harness.ClusterOptions{Nodes: n, RedisAddr: redis.Addr(), Insecure: insecure, Env: map[string]string{
		"RSC_LOG_LEVEL":                       "warn",
		"RSC_COORDINATION_HEARTBEAT_INTERVAL": "1s",
		"RSC_COORDINATION_MEMBER_LEASE_TTL":   "30s",
		"RSC_LIMITS_JOINS_PER_SECOND":         "1000",
		"RSC_LIMITS_JOIN_BURST":               "1000",
		"RSC_DEFAULTS_INITIAL_SHARD_COUNT":    fmt.Sprint(shardsPerGroup),
	}})
	urls := cl.URLs()
	transport := &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers}
	clients := make([]*harness.Client, len(urls))
	for i, u := range urls {
		clients[i] = harness.NewClient(u)
		clients[i].HTTP = &http.Client{Transport: transport, Timeout: 10 * time.Second}
	}
	admin := clients[0]
	admin.CreateStream(t, "bench", shardsPerGroup)

	var members []*harness.Member
	for g := 0; g < groups; g++ {
		for m := 0; m < membersPerGrp; m++ {
			members = append(members, harness.NewMember(clients[(g+m)%len(clients)], "bench", fmt.Sprintf("g%02d", g), fmt.Sprintf("m%02d", m)))
		}
	}
	// Join and settle: every member heartbeats until its group is stable.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		pending := 0
		for _, m := range members {
			r := m.Beat(t)
			m.Release()
			if r.Status != protocol.StatusOK || len(r.Assignment.PendingShards) > 0 {
				pending++
			}
		}
		if pending == 0 {
			break
		}
	}

	var done, failed atomic.Int64
	stop := time.Now().Add(window())
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := members[w*len(members)/workers : (w+1)*len(members)/workers]
			for i := 0; time.Now().Before(stop); i++ {
				m := mine[i%len(mine)]
				m.C = clients[(w+i)%len(clients)] // spread over every node
				req := m.Request()
				var resp protocol.HeartbeatResponse
				code, _, err := m.C.Do("POST", harness.HeartbeatPath(m.Prefix, m.Group, m.ID), req, &resp)
				if err != nil || code != 200 || resp.Status != protocol.StatusOK {
					failed.Add(1)
					continue
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	rate := float64(done.Load()) / window().Seconds()
	if f := failed.Load(); f > done.Load()/100 {
		t.Errorf("%d nodes: %d of %d heartbeats not OK", n, f, f+done.Load())
	}
	var fwd *forwardCost
	if n > 1 {
		fwd = measureForwarding(t, cl, clients, members[0])
	}
	return rate, fwd
}

type forwardCost struct {
	local, forwarded, loopback time.Duration
}

func (f *forwardCost) String() string {
	return fmt.Sprintf("heartbeat-p50 via-hosting-node=%s via-other-node=%s forwarding-cost=%s loopback-tcp-round-trip-p50=%s forwarding/loopback=%.1f",
		f.local, f.forwarded, f.forwarded-f.local, f.loopback, float64(f.forwarded-f.local)/float64(f.loopback))
}

// measureForwarding times sequential heartbeats of one member through the
// node hosting its group and through another node, and a bare loopback TCP
// round trip, all in the same run.
func measureForwarding(t *testing.T, cl *harness.Cluster, clients []*harness.Client, m *harness.Member) *forwardCost {
	host := hostingNode(t, cl, m.Prefix+"/"+m.Group)
	if host < 0 {
		t.Logf("could not find the node hosting %s/%s", m.Prefix, m.Group)
		return nil
	}
	other := (host + 1) % len(clients)
	const n = 400
	sample := func(c *harness.Client) time.Duration {
		m.C = c
		d := make([]time.Duration, 0, n)
		for i := 0; i < n; i++ {
			req := m.Request()
			start := time.Now()
			var resp protocol.HeartbeatResponse
			code, _, err := c.Do("POST", harness.HeartbeatPath(m.Prefix, m.Group, m.ID), req, &resp)
			if err == nil && code == 200 {
				d = append(d, time.Since(start))
			}
		}
		return p50(d)
	}
	var local, forwarded time.Duration
	for round := 0; round < 2; round++ { // interleaved, so drift hits both
		local += sample(clients[host])
		forwarded += sample(clients[other])
	}
	return &forwardCost{local: local / 2, forwarded: forwarded / 2, loopback: loopbackRTT(t)}
}

func hostingNode(t *testing.T, cl *harness.Cluster, group string) int {
	for i, c := range cl.Nodes {
		var body struct {
			Groups []struct {
				Group string `json:"group"`
			} `json:"groups"`
		}
		if code, _, err := harness.NewClient(c.URL()).Do("GET", "/debug/actors", nil, &body); err != nil || code != 200 {
			continue
		}
		for _, g := range body.Groups {
			if g.Group == group {
				return i
			}
		}
	}
	return -1
}

// loopbackRTT is the median round trip of one small message over a loopback
// TCP connection (what one extra hop costs at least).
func loopbackRTT(t *testing.T) time.Duration {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 256)
		for {
			k, err := c.Read(buf)
			if err != nil {
				return
			}
			if _, err := c.Write(buf[:k]); err != nil {
				return
			}
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg := []byte(strings.Repeat("x", 200))
	buf := make([]byte, 256)
	d := make([]time.Duration, 0, 2000)
	for i := 0; i < 2000; i++ {
		start := time.Now()
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	return p50(d)
}

func p50(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}
