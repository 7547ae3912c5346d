// Package testca makes certificate authorities and certificates for tests:
// a CA, node and client certificates it signs (valid for loopback), expired
// and self-signed ones, written as PEM files. Keys are ECDSA P-256, made
// fresh per CA. Not for production: nothing here protects a key.
package testca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// CA is a test certificate authority.
type CA struct {
	Cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	CertPEM []byte
}

var serial atomic.Int64

// New makes a CA named name, valid from an hour ago for a day.
func New(tb testing.TB, name string) *CA {
	tb.Helper()
	key := newKey(tb)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial.Add(1)), Subject: pkix.Name{CommonName: name, Organization: []string{"rsc tests"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	return &CA{Cert: cert, key: key, CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// Options shape an issued certificate.
type Options struct {
	NotBefore, NotAfter time.Time // zero: an hour ago, a day from now
	DNSNames            []string  // added to localhost
	SelfSigned          bool      // signed by its own key, not the CA's
}

// Pair is a certificate and its private key, PEM encoded.
type Pair struct {
	CertPEM, KeyPEM []byte
}

// Issue makes a certificate for cn, valid for localhost, 127.0.0.1 and ::1,
// for both server and client authentication (a node is both).
func (ca *CA) Issue(tb testing.TB, cn string, o Options) Pair {
	tb.Helper()
	key := newKey(tb)
	if o.NotBefore.IsZero() {
		o.NotBefore = time.Now().Add(-time.Hour)
	}
	if o.NotAfter.IsZero() {
		o.NotAfter = time.Now().Add(24 * time.Hour)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial.Add(1)), Subject: pkix.Name{CommonName: cn, Organization: []string{"rsc tests"}},
		NotBefore: o.NotBefore, NotAfter: o.NotAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames:    append([]string{"localhost"}, o.DNSNames...),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	parent, signer := ca.Cert, ca.key
	if o.SelfSigned {
		parent, signer = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		tb.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	return Pair{CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})}
}

// Files are the paths Write wrote.
type Files struct{ Cert, Key, CA string }

// Write writes p and ca's certificate into dir as <name>.crt, <name>.key
// and <name>-ca.crt (mode 0600 for the key).
func (ca *CA) Write(tb testing.TB, dir, name string, p Pair) Files {
	tb.Helper()
	f := Files{Cert: filepath.Join(dir, name+".crt"), Key: filepath.Join(dir, name+".key"), CA: filepath.Join(dir, name+"-ca.crt")}
	WriteFile(tb, f.Cert, p.CertPEM)
	WriteFile(tb, f.Key, p.KeyPEM)
	WriteFile(tb, f.CA, ca.CertPEM)
	return f
}

// WriteFile replaces path's content atomically (a rename, as a Kubernetes
// Secret volume swaps its files), mode 0600.
func WriteFile(tb testing.TB, path string, b []byte) {
	tb.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		tb.Fatal(err)
	}
}

func newKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}
