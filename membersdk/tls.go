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
