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
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		b, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("%w: cannot read %s: %v", ErrCAFile, caFile, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("%w: %s holds no PEM certificate: give the CA that signed the coordinator's certificate", ErrCAFile, caFile)
		}
		cfg.RootCAs = pool
	}
	if (clientCert == "") != (clientKey == "") {
		return nil, fmt.Errorf("%w: give both the client certificate and its key, or neither (got %q and %q)", ErrCAFile, clientCert, clientKey)
	}
	if clientCert != "" {
		c, err := tls.LoadX509KeyPair(clientCert, clientKey)
		if err != nil {
			return nil, fmt.Errorf("%w: client certificate %s with key %s: %v", ErrCAFile, clientCert, clientKey, err)
		}
		cfg.Certificates = []tls.Certificate{c}
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = cfg
	return &http.Client{Transport: t}, nil
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
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: r.ServerName}
	switch r.MinVersion {
	case "", "1.2":
	case "1.3":
		cfg.MinVersion = tls.VersionTLS13
	default:
		return nil, fmt.Errorf("%w: RedisTLS.MinVersion %q: use \"1.2\" or \"1.3\"", ErrCAFile, r.MinVersion)
	}
	if r.CAFile != "" {
		b, err := os.ReadFile(r.CAFile)
		if err != nil {
			return nil, fmt.Errorf("%w: RedisTLS.CAFile: cannot read %s: %v", ErrCAFile, r.CAFile, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("%w: RedisTLS.CAFile: %s holds no PEM certificate: give the CA that signed Redis' certificate", ErrCAFile, r.CAFile)
		}
		cfg.RootCAs = pool
	}
	if (r.CertFile == "") != (r.KeyFile == "") {
		return nil, fmt.Errorf("%w: RedisTLS.CertFile and KeyFile go together (got %q and %q)", ErrCAFile, r.CertFile, r.KeyFile)
	}
	if r.CertFile != "" {
		c, err := tls.LoadX509KeyPair(r.CertFile, r.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("%w: RedisTLS.CertFile %s with KeyFile %s: %v", ErrCAFile, r.CertFile, r.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{c}
	}
	return cfg, nil
}
