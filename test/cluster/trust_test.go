package cluster

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/internal/tlsfiles/testca"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// A process that is not a node — no certificate, a self-signed one, one of
// another CA, an expired one of the cluster CA — reaches neither a node's
// cluster health endpoint (it cannot read the membership or answer for a
// node) nor its actor remote (it cannot deliver a heartbeat, a leave or a
// pause to a group's grain). The group it tried to reach is unchanged, its
// members keep their epochs and shards, and every node it knocked at logs
// the refusal with its address and, when it showed one, its certificate.
//
// Then (one cluster for both: a cluster takes seconds to form) a node's
// certificate is rotated under load (cert-manager renewing its Secret): the
// node takes the new files without a restart and heartbeats keep being
// answered. The new certificate is short-lived and nothing renews it: when
// it expires the node steps out of the cluster — an ERROR naming the file
// and the expiry, its groups handed over, exit — instead of staying up
// where no peer can reach it, and the members carry on with the other
// nodes.
func TestNodeTrust(t *testing.T) {
	w := startWorldWith(t, 4, map[string]string{"RSC_CLUSTER_TLS_RELOAD_INTERVAL": "1s"})
	a, b := w.member("a", 0), w.member("b", 2)
	strangerChangesNothing(t, w, a, b)
	certificateRotationAndExpiry(t, w, a, b)
}

func strangerChangesNothing(t *testing.T, w *world, a, b *harness.FailoverMember) {
	var before protocol.GroupResponse
	beatUntil(t, w, "4 shards over a and b, the group stable", func() bool {
		g, ok := w.groupView()
		before = g
		return ok && len(a.Owned) == 2 && len(b.Owned) == 2 && g.State == "STABLE"
	}, a, b)

	// The members keep heartbeating while the stranger knocks: a lease that
	// ran out would move shards for reasons of its own.
	stopBeating := keepBeating(true, a, b)

	other := testca.New(t, "not the cluster CA")
	strangers := map[string][]tls.Certificate{"no certificate": nil}
	for name, p := range map[string]testca.Pair{
		"self-signed":       w.cl.CA.Issue(t, "stranger-self", testca.Options{SelfSigned: true}),
		"another CA":        other.Issue(t, "stranger-other-ca", testca.Options{}),
		"expired, right CA": w.cl.CA.Issue(t, "stranger-expired", testca.Options{NotAfter: time.Now().Add(-time.Minute)}),
	} {
		c, err := tls.X509KeyPair(p.CertPEM, p.KeyPEM)
		require.NoError(t, err)
		strangers[name] = []tls.Certificate{c}
	}
	for name, certs := range strangers {
		for i := range w.cl.Nodes {
			cfg := &tls.Config{Certificates: certs, InsecureSkipVerify: true}
			health := fmt.Sprintf("https://127.0.0.1:%d/_health", w.cl.ManagePorts[i])
			cli := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 5 * time.Second}
			if resp, err := cli.Get(health); err == nil {
				resp.Body.Close()
				t.Fatalf("%s: node %d's health endpoint answered a stranger: %s", name, i+1, resp.Status)
			}
			remote := "127.0.0.1:" + strconv.Itoa(w.cl.RemotePorts[i])
			conn, err := tls.Dial("tcp", remote, cfg)
			if err == nil {
				// TLS 1.3 tells a client of its refused certificate on the
				// first read; a node would get its first HTTP/2 frame.
				_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
				_, _ = conn.Write([]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"))
				_, err = conn.Read(make([]byte, 1))
				conn.Close()
			}
			require.Error(t, err, "%s: node %d's actor remote (cluster.port) spoke to a stranger", name, i+1)
		}
	}
	// Plaintext, as a protoactor-go client of the same version dials by
	// default: the TLS server reads a ClientHello, not an HTTP/2 preface.
	for i := range w.cl.Nodes {
		conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(w.cl.RemotePorts[i]), 5*time.Second)
		require.NoError(t, err)
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		_, _ = conn.Write([]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00"))
		n, _ := conn.Read(make([]byte, 64))
		conn.Close()
		require.Zero(t, n, "node %d answered a plaintext HTTP/2 client", i+1)
	}

	require.NoError(t, stopBeating(), "the members were answered OK throughout")

	// Nothing changed: the members keep their epochs and shards.
	ra, rb := w.beat(a), w.beat(b)
	require.Equal(t, protocol.StatusOK, ra.Status, "a keeps its membership")
	require.Equal(t, protocol.StatusOK, rb.Status, "b keeps its membership")
	after, ok := w.groupView()
	require.True(t, ok)
	require.Equal(t, before.GroupEpoch, after.GroupEpoch, "group epoch")
	require.Equal(t, before.AssignmentEpoch, after.AssignmentEpoch, "assignment epoch")
	require.Equal(t, "STABLE", after.State)
	require.Equal(t, protocol.RebalancingActive, after.Rebalancing, "rebalancing was not paused")

	// Every node logged the refusals with the stranger's address, and the
	// certificates it was shown by their subject.
	for i, n := range w.cl.Nodes {
		logs := n.Logs()
		for _, want := range []string{
			"refused a connection to the actor remote (cluster.port)",
			"refused a connection to the cluster health endpoint",
			"peer=127.0.0.1:",
			"stranger-self", "stranger-other-ca",
		} {
			require.True(t, strings.Contains(logs, want), "node %d logs %q", i+1, want)
		}
		require.NotContains(t, logs, "Redis lost coordinator state", "node %d: no false data-loss hold", i+1)
	}
}

func certificateRotationAndExpiry(t *testing.T, w *world, a, b *harness.FailoverMember) {
	stopBeating := keepBeating(false, a, b)

	n2, files := w.cl.Nodes[1], w.cl.NodeTLS[1]
	expires := time.Now().Add(8 * time.Second).Truncate(time.Second)
	pair := w.cl.CA.Issue(t, "n2-renewed", testca.Options{NotAfter: expires})
	testca.WriteFile(t, files.Key, pair.KeyPEM)
	testca.WriteFile(t, files.Cert, pair.CertPEM)
	require.Eventually(t, func() bool {
		logs := n2.Logs()
		return strings.Contains(logs, "TLS files changed") && strings.Contains(logs, "CN=n2-renewed")
	},
		10*time.Second, 100*time.Millisecond, "n2 took the rotated certificate without a restart")
	require.Eventually(t, n2.Exited, 30*time.Second, 200*time.Millisecond, "n2 steps out once its certificate expired")
	logs := n2.Logs()
	require.Contains(t, logs, "stepping out of the cluster: node certificate expired")
	require.Contains(t, logs, files.Cert, "the ERROR names the file")
	require.Contains(t, logs, expires.UTC().Format(time.RFC3339), "and the expiry")

	// The members carry on with n1 and n3 (the goroutine fails if any
	// heartbeat went unanswered) and the group settles again.
	time.Sleep(lease) // a lease's worth of heartbeats after n2 left
	require.NoError(t, stopBeating(), "a node answered every heartbeat")
	beatUntil(t, w, "the group settled again without n2", func() bool {
		g, ok := w.groupView()
		return ok && g.State == "STABLE" && len(a.Owned)+len(b.Owned) == 4
	}, a, b)
}

// keepBeating heartbeats ms every heartbeat interval (releasing revocations
// at once) until the returned stop is called, which reports the first
// heartbeat no node answered — or, with wantOK, that was not answered OK.
func keepBeating(wantOK bool, ms ...*harness.FailoverMember) (stop func() error) {
	quit, done := make(chan struct{}), make(chan error, 1)
	go func() {
		for {
			select {
			case <-quit:
				done <- nil
				return
			case <-time.After(heartbeat):
			}
			for _, m := range ms {
				m.Release()
				r, err := m.Beat(beatWithin)
				if err != nil || (wantOK && r.Status != protocol.StatusOK) {
					done <- fmt.Errorf("%s: %v (status %s)", m.ID, err, r.Status)
					return
				}
			}
		}
	}()
	return func() error { close(quit); return <-done }
}
