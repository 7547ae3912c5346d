package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/internal/tlsfiles/testca"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// httpsEnv starts a coordinator serving HTTPS with a certificate of a test
// CA (and, with clientCA, requiring client certificates of it).
func httpsEnv(t *testing.T, clientCA bool) (*env, *testca.CA, testca.Files, *x509.CertPool) {
	t.Helper()
	ca := testca.New(t, "rsc test HTTPS CA")
	f := ca.Write(t, t.TempDir(), "server", ca.Issue(t, "coordinator-v1", testca.Options{}))
	settings := map[string]string{
		"RSC_HTTP_TLS_CERT_FILE": f.Cert, "RSC_HTTP_TLS_KEY_FILE": f.Key, "RSC_HTTP_TLS_RELOAD_INTERVAL": "1s",
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.CertPEM)
	cfg := &tls.Config{RootCAs: pool}
	if clientCA {
		settings["RSC_HTTP_TLS_CLIENT_CA_FILE"] = f.CA
		c, err := tls.X509KeyPair(func() ([]byte, []byte) { p := ca.Issue(t, "ops", testca.Options{}); return p.CertPEM, p.KeyPEM }())
		require.NoError(t, err)
		cfg.Certificates = []tls.Certificate{c}
	}
	return startWith(t, settings, cfg), ca, f, pool
}

// servedCN is the common name of the certificate the coordinator presents
// to a new connection.
func servedCN(t *testing.T, addr string, pool *x509.CertPool) string {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "localhost"})
	require.NoError(t, err)
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Subject.CommonName
}

// The whole front over HTTPS: the member protocol, monitoring, the console,
// the OpenAPI document and /metrics; plain HTTP on the same port gets
// nothing. The certificate is rotated without a restart; a bad rotated file
// keeps the last good one and says why.
func TestHTTPSFront(t *testing.T) {
	e, ca, f, pool := httpsEnv(t, false)
	require.True(t, strings.HasPrefix(e.coord.URL(), "https://"))
	e.c.CreateStream(t, "orders", 2)
	m := e.member("m1")
	for range 5 {
		m.Release()
		if r := m.Beat(t); r.Status == protocol.StatusOK && len(m.Shards()) == 2 {
			break
		}
	}
	require.Len(t, m.Shards(), 2, "a member joins and gets its shards over HTTPS")
	for _, path := range []string{"/console", "/docs", "/coord/v1/openapi.json", "/metrics", "/coord/v1/monitoring/streams/orders/groups/workers"} {
		resp, err := e.coord.HTTPClient().Get(e.coord.URL() + path)
		require.NoError(t, err, path)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
	}
	// streamctl trusts the CA given with --ca-file (the system's CAs do not
	// know the test CA).
	ctl, err := harness.Binary("streamctl")
	require.NoError(t, err)
	out, err := exec.Command(ctl, "--url", e.coord.URL(), "--ca-file", f.CA, "health").CombinedOutput()
	require.NoError(t, err, "streamctl --ca-file over HTTPS:\n%s", out)
	out, err = exec.Command(ctl, "--url", e.coord.URL(), "health").CombinedOutput()
	require.Error(t, err, "without the CA, streamctl must not trust the certificate:\n%s", out)
	require.Contains(t, string(out), "certificate")

	addr := strings.TrimPrefix(e.coord.URL(), "https://")
	if resp, err := (&http.Client{Timeout: 3 * time.Second}).Get("http://" + addr + "/coord/v1/monitoring/health"); err == nil {
		resp.Body.Close()
		require.NotEqual(t, http.StatusOK, resp.StatusCode, "plain HTTP on the HTTPS port")
	}

	// Rotation, as cert-manager renews a Secret.
	require.Equal(t, "coordinator-v1", servedCN(t, addr, pool))
	v2 := ca.Issue(t, "coordinator-v2", testca.Options{})
	testca.WriteFile(t, f.Key, v2.KeyPEM)
	testca.WriteFile(t, f.Cert, v2.CertPEM)
	require.Eventually(t, func() bool { return servedCN(t, addr, pool) == "coordinator-v2" }, 10*time.Second, 100*time.Millisecond,
		"new connections get the rotated certificate, without a restart")

	// A bad rotated file (a certificate whose key is not there) is refused.
	testca.WriteFile(t, f.Cert, ca.Issue(t, "coordinator-v3", testca.Options{}).CertPEM)
	require.Eventually(t, func() bool {
		return strings.Contains(e.coord.Logs(), "rotated TLS files refused; the last good certificate stays in use")
	},
		10*time.Second, 100*time.Millisecond)
	require.Contains(t, e.coord.Logs(), "http.tls.cert-file")
	require.Equal(t, "coordinator-v2", servedCN(t, addr, pool), "the last good certificate stays in use")
	require.Equal(t, protocol.StatusOK, e.member("m2").Beat(t).Status, "members are still answered")
}

// With http.tls.client-ca-file every caller needs a client certificate of
// that CA, on top of auth.
func TestHTTPSClientCertificates(t *testing.T) {
	e, _, _, pool := httpsEnv(t, true)
	resp, err := e.coord.HTTPClient().Get(e.coord.URL() + "/coord/v1/monitoring/health")
	require.NoError(t, err, "a caller with a client certificate of the CA")
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	bare := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if resp, err := bare.Get(e.coord.URL() + "/coord/v1/monitoring/health"); err == nil {
		resp.Body.Close()
		t.Fatalf("a caller without a client certificate was answered: %s", resp.Status)
	}
}

// Bad TLS files stop the start with one line naming the key and the file.
func TestHTTPSBadFilesAtStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts coordinator processes")
	}
	bin, err := harness.Binary("coordinator")
	require.NoError(t, err)
	r := redistest.Start(t)
	dir := t.TempDir()
	ca := testca.New(t, "CA")
	good := ca.Write(t, dir, "good", ca.Issue(t, "good", testca.Options{}))
	other := ca.Write(t, dir, "other", ca.Issue(t, "other", testca.Options{}))
	expired := ca.Write(t, dir, "expired", ca.Issue(t, "expired", testca.Options{NotAfter: time.Now().Add(-time.Hour)}))
	for name, c := range map[string]struct {
		env  []string
		want []string
	}{
		"missing certificate": {[]string{"RSC_HTTP_TLS_CERT_FILE=" + filepath.Join(dir, "nope.crt"), "RSC_HTTP_TLS_KEY_FILE=" + good.Key},
			[]string{"http.tls.cert-file", "nope.crt"}},
		"key of another certificate": {[]string{"RSC_HTTP_TLS_CERT_FILE=" + good.Cert, "RSC_HTTP_TLS_KEY_FILE=" + other.Key},
			[]string{"http.tls.key-file", "other.key"}},
		"expired": {[]string{"RSC_HTTP_TLS_CERT_FILE=" + expired.Cert, "RSC_HTTP_TLS_KEY_FILE=" + expired.Key},
			[]string{"http.tls.cert-file", "expired.crt", "expired at"}},
		"client CA file without a CA": {[]string{"RSC_HTTP_TLS_CERT_FILE=" + good.Cert, "RSC_HTTP_TLS_KEY_FILE=" + good.Key, "RSC_HTTP_TLS_CLIENT_CA_FILE=" + other.Cert},
			[]string{"http.tls.client-ca-file", "other.crt", "no CA certificate"}},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(bin)
			cmd.Env = append([]string{"RSC_HTTP_ADDR=127.0.0.1:0", "RSC_REDIS_ADDRS=" + r.Addr(), "RSC_STORE_TRUST_EMPTY_STORE=true"}, c.env...)
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "the start must fail:\n%s", out)
			for _, w := range c.want {
				require.Contains(t, string(out), w)
			}
		})
	}
}
