//go:build !race

// Left out of -race builds for the reason automanaged_test.go gives (a
// library race in every multi-node cluster in one process).

package clusterprov

import (
	"bytes"
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/internal/tlsfiles"
	"github.com/redisstream/coordinator/internal/tlsfiles/testca"
)

// syncBuffer is a log sink safe for the provider's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// Two automanaged nodes with node certificates of one CA form a cluster
// over mutual TLS (a grain request crosses them); a process without a node
// certificate — none, self-signed, another CA's — can read neither /_health
// nor speak to the actor remote, and each refusal is logged with its
// address.
func TestAutomanagedMutualTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two cluster nodes")
	}
	dir := t.TempDir()
	ca := testca.New(t, "cluster CA")
	const n = 2
	ports, managePorts, seeds := make([]int, n), make([]int, n), make([]string, n)
	for i := range n {
		ports[i], managePorts[i] = freePort(t), freePort(t)
		seeds[i] = net.JoinHostPort("127.0.0.1", strconv.Itoa(managePorts[i]))
	}
	logs := &syncBuffer{}
	nodes := make([]*cluster.Cluster, n)
	var mu sync.Mutex
	seen := make([]int, n)
	for i := range n {
		name := "n" + strconv.Itoa(i)
		f := ca.Write(t, dir, name, ca.Issue(t, name, testca.Options{}))
		src, err := tlsfiles.Load(tlsfiles.Files{CA: f.CA, Cert: f.Cert, Key: f.Key}, nil)
		require.NoError(t, err)
		o := Options{Provider: config.ProviderAutomanaged, Name: "rsc-test", Host: "127.0.0.1", Port: ports[i],
			ManagePort: managePorts[i], Seeds: seeds, RefreshInterval: 100 * time.Millisecond, TLS: src,
			Logger: slog.New(slog.NewTextHandler(logs, nil))}
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
		for _, c := range nodes {
			c.Shutdown(true)
		}
	}()
	for i := range nodes {
		require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return seen[i] == n },
			20*time.Second, 50*time.Millisecond, "node %d sees both members over mutual TLS", i)
	}
	hosts := map[string]bool{}
	for i := range 20 {
		res, err := nodes[0].Request("g"+strconv.Itoa(i), "where", wrapperspb.String("?"), cluster.WithTimeout(5*time.Second))
		require.NoError(t, err)
		hosts[res.(*wrapperspb.StringValue).GetValue()] = true
	}
	assert.Len(t, hosts, n, "grains on both nodes: requests crossed the mutual TLS remote")

	other := testca.New(t, "another CA")
	strangers := map[string][]tls.Certificate{"no certificate": nil}
	for name, pair := range map[string]testca.Pair{
		"self-signed": ca.Issue(t, "self", testca.Options{SelfSigned: true}),
		"another CA":  other.Issue(t, "other", testca.Options{}),
		"expired":     ca.Issue(t, "old", testca.Options{NotAfter: time.Now().Add(-time.Minute)}),
	} {
		c, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
		require.NoError(t, err)
		strangers[name] = []tls.Certificate{c}
	}
	for name, certs := range strangers {
		t.Run(name, func(t *testing.T) {
			cfg := &tls.Config{Certificates: certs, InsecureSkipVerify: true}
			cli := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 5 * time.Second}
			resp, err := cli.Get("https://" + seeds[1] + "/_health")
			if err == nil {
				resp.Body.Close()
			}
			require.Error(t, err, "the health endpoint answers only nodes")
			if resp, err := http.Get("http://" + seeds[1] + "/_health"); err == nil {
				resp.Body.Close()
				require.Equal(t, http.StatusBadRequest, resp.StatusCode, "plaintext gets no node model")
			}
			// The actor remote: its TLS handshake fails (TLS 1.3 reports a
			// refused client certificate on the first read).
			conn, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(ports[1]), cfg)
			if err == nil {
				_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
				_, err = conn.Read(make([]byte, 1))
				conn.Close()
			}
			require.Error(t, err, "the actor remote answers only nodes")
		})
	}
	require.Eventually(t, func() bool {
		out := logs.String()
		return strings.Contains(out, "refused a connection to the cluster health endpoint") &&
			strings.Contains(out, "refused a connection to the actor remote") && strings.Contains(out, "peer=127.0.0.1:")
	}, 5*time.Second, 50*time.Millisecond, "refusals are logged with the peer's address:\n%s", logs.String())
}
