package tlsfiles_test

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/internal/tlsfiles"
	"github.com/redisstream/coordinator/internal/tlsfiles/testca"
)

func files(f testca.Files) tlsfiles.Files {
	return tlsfiles.Files{Cert: f.Cert, Key: f.Key, CA: f.CA,
		CertKey: "x.tls.cert-file", KeyKey: "x.tls.key-file", CAKey: "x.tls.ca-file"}
}

// serve accepts TLS connections with cfg on loopback and answers each with
// the subject of the certificate it was shown.
func serve(t *testing.T, cfg *tls.Config) string {
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				tc := c.(*tls.Conn)
				if err := tc.Handshake(); err != nil {
					return
				}
				name := "anonymous"
				if pc := tc.ConnectionState().PeerCertificates; len(pc) > 0 {
					name = pc[0].Subject.CommonName
				}
				_, _ = io.WriteString(c, name)
			}()
		}
	}()
	return ln.Addr().String()
}

// dial connects with cfg and returns what the server answered, or the error.
func dial(addr string, cfg *tls.Config) (string, error) {
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(c)
	if err != nil {
		return "", err
	}
	if len(b) == 0 {
		return "", errors.New("closed without an answer")
	}
	return string(b), nil
}

func TestMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca := testca.New(t, "cluster CA")
	srv, err := tlsfiles.Load(files(ca.Write(t, dir, "n1", ca.Issue(t, "n1", testca.Options{}))), nil)
	require.NoError(t, err)
	addr := serve(t, srv.ServerConfig(true))

	cli, err := tlsfiles.Load(files(ca.Write(t, dir, "n2", ca.Issue(t, "n2", testca.Options{}))), nil)
	require.NoError(t, err)
	got, err := dial(addr, cli.PeerConfig())
	require.NoError(t, err)
	require.Equal(t, "n2", got, "the server saw the client's certificate")
	got, err = dial(addr, cli.ClientConfig("localhost"))
	require.NoError(t, err, "the node certificate names localhost")
	require.Equal(t, "n2", got)
	_, err = dial(addr, cli.ClientConfig("elsewhere.example"))
	require.Error(t, err, "a server name the certificate does not carry")

	other := testca.New(t, "another CA")
	strangers := map[string]tlsfiles.Files{
		"no certificate":      {CA: ca.Write(t, dir, "anon", ca.Issue(t, "anon", testca.Options{})).CA, CAKey: "x"},
		"self-signed":         files(ca.Write(t, dir, "self", ca.Issue(t, "self", testca.Options{SelfSigned: true}))),
		"another CA":          files(other.Write(t, dir, "other", other.Issue(t, "other", testca.Options{}))),
		"expired certificate": files(ca.Write(t, dir, "old", ca.Issue(t, "old", testca.Options{NotAfter: time.Now().Add(-time.Minute)}))),
	}
	for name, f := range strangers {
		t.Run(name, func(t *testing.T) {
			var cfg *tls.Config
			if name == "expired certificate" || name == "self-signed" || name == "another CA" {
				// Load refuses an expired certificate (checked below), and
				// the others present a chain the cluster CA did not sign:
				// present them raw, trusting the server.
				pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
				require.NoError(t, err)
				cfg = &tls.Config{Certificates: []tls.Certificate{pair}, InsecureSkipVerify: true}
			} else {
				src, err := tlsfiles.Load(f, nil)
				require.NoError(t, err)
				cfg = src.ClientConfig("127.0.0.1")
			}
			_, err := dial(addr, cfg)
			require.Error(t, err, "a client the cluster CA did not vouch for is refused")
		})
	}
}

func TestBadInputNamesKeyAndFile(t *testing.T) {
	dir := t.TempDir()
	ca := testca.New(t, "CA")
	good := ca.Write(t, dir, "good", ca.Issue(t, "good", testca.Options{}))
	otherKey := ca.Write(t, dir, "other", ca.Issue(t, "other", testca.Options{}))
	expired := ca.Write(t, dir, "expired", ca.Issue(t, "expired", testca.Options{NotAfter: time.Now().Add(-time.Hour)}))
	leafAsCA := filepath.Join(dir, "leaf-as-ca.crt")
	testca.WriteFile(t, leafAsCA, ca.Issue(t, "leaf", testca.Options{}).CertPEM)
	for _, c := range []struct {
		name string
		f    tlsfiles.Files
		want []string
	}{
		{"missing cert", files(testca.Files{Cert: filepath.Join(dir, "nope.crt"), Key: good.Key}), []string{"x.tls.cert-file", "nope.crt", "cannot read"}},
		{"key of another cert", files(testca.Files{Cert: good.Cert, Key: otherKey.Key}), []string{"x.tls.cert-file", "x.tls.key-file", "good.crt", "other.key"}},
		{"expired", files(testca.Files{Cert: expired.Cert, Key: expired.Key}), []string{"x.tls.cert-file", "expired.crt", "expired at", "renew"}},
		{"CA file without a CA", files(testca.Files{CA: leafAsCA}), []string{"x.tls.ca-file", "leaf-as-ca.crt", "no CA certificate"}},
		{"cert without key", files(testca.Files{Cert: good.Cert}), []string{"x.tls.cert-file", "x.tls.key-file", "set both"}},
		{"empty CA file", files(testca.Files{CA: filepath.Join(dir, "empty.crt")}), []string{"x.tls.ca-file", "empty.crt"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if strings.HasSuffix(c.f.CA, "empty.crt") {
				testca.WriteFile(t, c.f.CA, nil)
			}
			_, err := tlsfiles.Load(c.f, nil)
			require.ErrorIs(t, err, tlsfiles.ErrInvalid)
			for _, w := range c.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}

// A rotation is taken by the next handshake; a bad rotated file keeps the
// last good material.
func TestRotation(t *testing.T) {
	dir := t.TempDir()
	ca := testca.New(t, "CA 1")
	nf := ca.Write(t, dir, "node", ca.Issue(t, "node-v1", testca.Options{}))
	srv, err := tlsfiles.Load(files(nf), nil)
	require.NoError(t, err)
	addr := serve(t, srv.ServerConfig(true))
	cf := ca.Write(t, dir, "client", ca.Issue(t, "client-v1", testca.Options{}))
	cli, err := tlsfiles.Load(files(cf), nil)
	require.NoError(t, err)
	got, err := dial(addr, cli.ClientConfig("127.0.0.1"))
	require.NoError(t, err)
	require.Equal(t, "client-v1", got)

	require.False(t, cli.Reload(), "nothing changed")
	testca.WriteFile(t, cf.Cert, ca.Issue(t, "client-v2", testca.Options{}).CertPEM) // a key of its own: refused
	require.False(t, cli.Reload())
	require.False(t, cli.Reload(), "refused once per content")
	require.EqualValues(t, 1, cli.Failures())
	got, err = dial(addr, cli.ClientConfig("127.0.0.1"))
	require.NoError(t, err, "the last good certificate stays in use")
	require.Equal(t, "client-v1", got)

	v2 := ca.Issue(t, "client-v2", testca.Options{})
	testca.WriteFile(t, cf.Key, v2.KeyPEM)
	testca.WriteFile(t, cf.Cert, v2.CertPEM)
	require.True(t, cli.Reload())
	got, err = dial(addr, cli.ClientConfig("127.0.0.1"))
	require.NoError(t, err)
	require.Equal(t, "client-v2", got, "new handshakes present the rotated certificate")

	// CA rotation: the server trusts a new CA once its file names it; a
	// client of the old CA is then refused.
	ca2 := testca.New(t, "CA 2")
	testca.WriteFile(t, nf.CA, ca2.CertPEM)
	require.True(t, srv.Reload())
	_, err = dial(addr, cli.ClientConfig("127.0.0.1"))
	require.Error(t, err, "revoked by rotating the CA")
}
