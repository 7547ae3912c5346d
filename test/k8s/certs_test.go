package k8s

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is what kube-apiserver needs to serve TLS, to authenticate the test's
// admin client by certificate, and to sign service account tokens, written
// as PEM files into dir.
type pki struct {
	dir       string
	CACert    string // CA of the serving and client certificates
	ServeCert string // kube-apiserver's serving certificate (127.0.0.1, localhost, kubernetes.default.svc)
	ServeKey  string
	AdminCert string // client certificate CN=rsc-test-admin, O=system:masters
	AdminKey  string
	SAKey     string // service account token signing key (private)
	SAPub     string // and its public half, to verify the tokens
}

// newPKI generates a CA, the serving and admin certificates and the service
// account key pair (ECDSA P-256) into dir.
func newPKI(dir string) (*pki, error) {
	p := &pki{dir: dir}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rsc-test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	if p.CACert, err = p.writePEM("ca.crt", "CERTIFICATE", caDER); err != nil {
		return nil, err
	}
	issue := func(name string, serial int64, tmpl *x509.Certificate) (certFile, keyFile string, err error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return "", "", err
		}
		tmpl.SerialNumber = big.NewInt(serial)
		tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return "", "", err
		}
		if certFile, err = p.writePEM(name+".crt", "CERTIFICATE", der); err != nil {
			return "", "", err
		}
		keyFile, err = p.writeKey(name+".key", key)
		return certFile, keyFile, err
	}
	if p.ServeCert, p.ServeKey, err = issue("apiserver", 2, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
	}); err != nil {
		return nil, err
	}
	if p.AdminCert, p.AdminKey, err = issue("admin", 3, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "rsc-test-admin", Organization: []string{"system:masters"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return nil, err
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	if p.SAKey, err = p.writeKey("sa.key", saKey); err != nil {
		return nil, err
	}
	pub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	if p.SAPub, err = p.writePEM("sa.pub", "PUBLIC KEY", pub); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *pki) writeKey(name string, key *ecdsa.PrivateKey) (string, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", err
	}
	return p.writePEM(name, "EC PRIVATE KEY", der)
}

func (p *pki) writePEM(name, typ string, der []byte) (string, error) {
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}
