package membersdk

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
)

// ErrCAFile marks a CA file HTTPClientWithCA cannot use.
var ErrCAFile = errors.New("membersdk: CA file")

// HTTPClientWithCA returns an HTTP client (for ConsumerConfig.HTTPClient and
// ProducerConfig.HTTPClient) that trusts, for https:// coordinator URLs, the
// CA certificates of the PEM file caFile instead of the system's: for a
// coordinator whose certificate (http.tls.cert-file) comes from a private
// CA. With clientCert and clientKey (both or neither) it presents that
// client certificate, for a coordinator with http.tls.client-ca-file. The
// default HTTP client already trusts the system's CAs.
func HTTPClientWithCA(caFile, clientCert, clientKey string) (*http.Client, error) {
	cfg, err := clientTLS(tlsFiles{ca: caFile, cert: clientCert, key: clientKey,
		caName: "CA file", certName: "client certificate", keyName: "its key", server: "the coordinator's"})
	if err != nil {
		return nil, err
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = cfg
	return &http.Client{Transport: t}, nil
}

// tlsFiles are the files of a client's TLS configuration, with the names
// its errors give them and whose certificate the CA signs.
type tlsFiles struct {
	ca, cert, key             string
	caName, certName, keyName string
	server                    string
}

// clientTLS is a TLS 1.2+ client configuration trusting f.ca (the system's
// CAs when empty) and presenting f.cert with f.key (both or neither). An
// error wraps ErrCAFile and names the field and the file.
func clientTLS(f tlsFiles) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.ca != "" {
		b, err := os.ReadFile(f.ca)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: cannot read %s: %v", ErrCAFile, f.caName, f.ca, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("%w: %s: %s holds no PEM certificate: give the CA that signed %s certificate", ErrCAFile, f.caName, f.ca, f.server)
		}
		cfg.RootCAs = pool
	}
	if (f.cert == "") != (f.key == "") {
		return nil, fmt.Errorf("%w: %s and %s go together: give both or neither (got %q and %q)", ErrCAFile, f.certName, f.keyName, f.cert, f.key)
	}
	if f.cert != "" {
		c, err := tls.LoadX509KeyPair(f.cert, f.key)
		if err != nil {
			return nil, fmt.Errorf("%w: %s %s with %s %s: %v", ErrCAFile, f.certName, f.cert, f.keyName, f.key, err)
		}
		cfg.Certificates = []tls.Certificate{c}
	}
	return cfg, nil
}

// RedisTLS is how a member, a producer or the coordinator connects to a
// Redis that speaks TLS: the same settings as the coordinator's redis.tls*
// keys, documented once (docs/OPERATIONS.md, the redis.tls rows). Config
// builds the tls.Config to put in go-redis' Options.TLSConfig.
type RedisTLS struct {
	// CAFile is the PEM file of the CA that signed Redis' certificate;
	// empty = the system's CAs.
	CAFile string
	// CertFile and KeyFile are a PEM client certificate and its key, for a
	// Redis with tls-auth-clients yes; both or neither.
	CertFile, KeyFile string
	// ServerName is the name (or IP) Redis' certificate must carry; empty =
	// the host of the address dialled (go-redis sets it).
	ServerName string
	// MinVersion is "1.2" (the default when empty) or "1.3".
	MinVersion string
}

// Config returns the tls.Config of r. An error names the field and the file.
func (r RedisTLS) Config() (*tls.Config, error) {
	cfg, err := clientTLS(tlsFiles{ca: r.CAFile, cert: r.CertFile, key: r.KeyFile,
		caName: "RedisTLS.CAFile", certName: "RedisTLS.CertFile", keyName: "KeyFile", server: "Redis'"})
	if err != nil {
		return nil, err
	}
	cfg.ServerName = r.ServerName
	switch r.MinVersion {
	case "", "1.2":
	case "1.3":
		cfg.MinVersion = tls.VersionTLS13
	default:
		return nil, fmt.Errorf("%w: RedisTLS.MinVersion %q: use \"1.2\" or \"1.3\"", ErrCAFile, r.MinVersion)
	}
	return cfg, nil
}
