// Package tlsfiles holds TLS material read from files — a certificate and
// its key, a CA bundle — checked when read, and read again when the files
// change, so that a rotation (cert-manager renewing a Secret, an operator
// replacing a file) takes effect without a restart.
//
// Every error names the config key and the file, and says what was expected:
// the start refuses with it, and a bad rotated file keeps the last good
// material in use and is logged with it. A reloaded Source serves the new
// certificate on the next handshake; established connections keep theirs.
//
// The tls.Configs it builds read the current material at every handshake
// (GetCertificate, GetClientCertificate, and a verification against the
// current CA pool), so nothing has to be rebuilt on a reload.
package tlsfiles

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// ErrInvalid marks material that cannot be used: a missing or unreadable
// file, a key that does not match its certificate, an expired certificate,
// a CA file that holds no CA certificate.
var ErrInvalid = errors.New("tlsfiles: invalid TLS material")

// Files names the files of one TLS identity and the config keys that set
// them (for messages). Any of them may be empty: a Source without Cert
// presents no certificate; without CA it verifies against the system pool
// (a client) or asks for no client certificate (a server).
type Files struct {
	Cert, Key, CA          string
	CertKey, KeyKey, CAKey string // config keys, e.g. "cluster.tls.cert-file"
}

// material is one consistent reading of Files.
type material struct {
	cert   *tls.Certificate // nil without Files.Cert
	leaf   *x509.Certificate
	pool   *x509.CertPool // nil without Files.CA
	digest [sha256.Size]byte
}

// Source is the current TLS material of Files. Safe for concurrent use.
type Source struct {
	files Files
	log   *slog.Logger
	now   func() time.Time
	cur   atomic.Pointer[material]

	mu       sync.Mutex
	lastBad  [sha256.Size]byte // digest of the files last refused (logged once per content)
	reloads  atomic.Int64
	failures atomic.Int64
}

// Load reads and checks f. The error names the config key and the file.
func Load(f Files, log *slog.Logger) (*Source, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Source{files: f, log: log, now: time.Now}
	m, err := s.parse(s.readFiles())
	if err != nil {
		return nil, err
	}
	s.cur.Store(m)
	return s, nil
}

// Files returns the files s reads.
func (s *Source) Files() Files { return s.files }

// NotAfter is when the current certificate expires (zero without one).
func (s *Source) NotAfter() time.Time {
	if m := s.cur.Load(); m.leaf != nil {
		return m.leaf.NotAfter
	}
	return time.Time{}
}

// Reloads counts the rotations taken; Failures the rotated files refused.
func (s *Source) Reloads() int64  { return s.reloads.Load() }
func (s *Source) Failures() int64 { return s.failures.Load() }

// Watch re-reads the files every interval until ctx is done. A change that
// reads well replaces the material (logged at INFO with the new expiry); one
// that does not keeps the last good material and is logged at ERROR once per
// bad content, with the file and the reason. A certificate that expires while
// in use is logged at ERROR once, naming the file: renew it; onExpired (when
// not nil) is then called with its expiry, once until a renewal is taken.
func (s *Source) Watch(ctx context.Context, interval time.Duration, onExpired func(notAfter time.Time)) {
	if interval <= 0 {
		interval = 10 * time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	expired := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.Reload()
		na := s.NotAfter()
		switch {
		case na.IsZero() || !s.now().After(na):
			expired = false
		case !expired:
			expired = true
			s.log.Error("TLS certificate expired and no valid replacement was found; peers refuse it until it is renewed",
				slog.String("key", s.files.CertKey), slog.String("file", s.files.Cert), slog.Time("notAfter", na))
			if onExpired != nil {
				onExpired(na)
			}
		}
	}
}

// Reload reads the files once and takes them if they changed and read well.
// It reports whether the material changed.
func (s *Source) Reload() bool {
	c := s.readFiles()
	if c.digest == s.cur.Load().digest {
		return false
	}
	m, err := s.parse(c)
	if err != nil {
		s.mu.Lock()
		fresh := c.digest != s.lastBad
		s.lastBad = c.digest
		s.mu.Unlock()
		if fresh {
			s.failures.Add(1)
			s.log.Error("rotated TLS files refused; the last good certificate stays in use", slog.Any("err", err))
		}
		return false
	}
	s.cur.Store(m)
	s.reloads.Add(1)
	attrs := []any{slog.String("cert", s.files.Cert), slog.String("ca", s.files.CA)}
	if m.leaf != nil {
		attrs = append(attrs, slog.String("subject", m.leaf.Subject.String()), slog.Time("notAfter", m.leaf.NotAfter))
	}
	s.log.Info("TLS files changed; new handshakes use them", attrs...)
	return true
}

// contents are the files as read at one moment: their bytes (nil for an
// unset file), the read errors, and a digest of both (a file that cannot be
// read hashes its error, so its recovery counts as a change).
type contents struct {
	cert, key, ca          []byte
	certErr, keyErr, caErr error
	digest                 [sha256.Size]byte
}

// readFiles reads each set file once.
func (s *Source) readFiles() contents {
	var c contents
	h := sha256.New()
	for _, f := range []struct {
		path string
		b    *[]byte
		err  *error
	}{{s.files.Cert, &c.cert, &c.certErr}, {s.files.Key, &c.key, &c.keyErr}, {s.files.CA, &c.ca, &c.caErr}} {
		if f.path != "" {
			*f.b, *f.err = os.ReadFile(f.path)
			if *f.err != nil {
				fmt.Fprintf(h, "error:%v", *f.err)
			}
			h.Write(*f.b)
		}
		h.Write([]byte{0})
	}
	copy(c.digest[:], h.Sum(nil))
	return c
}

// parse checks c as the material of s.files.
func (s *Source) parse(c contents) (*material, error) {
	f := s.files
	m := &material{digest: c.digest}
	switch {
	case f.Cert != "" && f.Key == "":
		return nil, fmt.Errorf("%w: %s is set (%s) but %s is not: set both, the certificate and its private key", ErrInvalid, f.CertKey, f.Cert, f.KeyKey)
	case f.Key != "" && f.Cert == "":
		return nil, fmt.Errorf("%w: %s is set (%s) but %s is not: set both, the certificate and its private key", ErrInvalid, f.KeyKey, f.Key, f.CertKey)
	}
	if f.Cert != "" {
		certPEM, err := checkRead(f.CertKey, f.Cert, c.cert, c.certErr)
		if err != nil {
			return nil, err
		}
		keyPEM, err := checkRead(f.KeyKey, f.Key, c.key, c.keyErr)
		if err != nil {
			return nil, err
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("%w: %s (%s) and %s (%s) are not a certificate and its private key: %v", ErrInvalid, f.CertKey, f.Cert, f.KeyKey, f.Key, err)
		}
		leaf := cert.Leaf
		if leaf == nil {
			if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
				return nil, fmt.Errorf("%w: %s (%s): %v", ErrInvalid, f.CertKey, f.Cert, err)
			}
		}
		now := s.now()
		switch {
		case now.After(leaf.NotAfter):
			return nil, fmt.Errorf("%w: %s (%s): the certificate %q expired at %s: renew it", ErrInvalid, f.CertKey, f.Cert, leaf.Subject, leaf.NotAfter.UTC().Format(time.RFC3339))
		case now.Before(leaf.NotBefore):
			return nil, fmt.Errorf("%w: %s (%s): the certificate %q is not valid before %s: check this machine's clock or the certificate", ErrInvalid, f.CertKey, f.Cert, leaf.Subject, leaf.NotBefore.UTC().Format(time.RFC3339))
		}
		m.cert, m.leaf = &cert, leaf
	}
	if f.CA != "" {
		caPEM, err := checkRead(f.CAKey, f.CA, c.ca, c.caErr)
		if err != nil {
			return nil, err
		}
		pool, n, err := caPool(caPEM)
		if err != nil {
			return nil, fmt.Errorf("%w: %s (%s): %v", ErrInvalid, f.CAKey, f.CA, err)
		}
		if n == 0 {
			return nil, fmt.Errorf("%w: %s (%s) holds no CA certificate (PEM \"CERTIFICATE\" blocks with the CA flag): give the CA that signs the certificates to trust", ErrInvalid, f.CAKey, f.CA)
		}
		m.pool = pool
	}
	return m, nil
}

// checkRead names key and path when the file could not be read or is empty.
func checkRead(key, path string, b []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, fmt.Errorf("%w: %s: cannot read %s: %v", ErrInvalid, key, path, err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("%w: %s: %s is empty", ErrInvalid, key, path)
	}
	return b, nil
}

// caPool parses every certificate of a PEM bundle; n counts the CA ones.
func caPool(b []byte) (*x509.CertPool, int, error) {
	pool := x509.NewCertPool()
	n := 0
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, 0, err
		}
		if c.IsCA {
			n++
		}
		pool.AddCert(c)
	}
	return pool, n, nil
}

// ServerConfig is a server's tls.Config presenting the current certificate.
// With clientCA and a CA it requires a client certificate whose chain leads
// to the CA current at the handshake; without, it asks for none. The checks
// are callbacks (no GetConfigForClient), so a copy of the Config — as
// grpc-go's credentials.NewTLS makes to add its ALPN protocol — behaves the
// same.
func (s *Source) ServerConfig(clientCA bool) *tls.Config {
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	c.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		if m := s.cur.Load(); m.cert != nil {
			return m.cert, nil
		}
		return nil, errors.New("tlsfiles: no server certificate configured")
	}
	if clientCA && s.files.CA != "" {
		c.ClientAuth = tls.RequireAnyClientCert
		c.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			return s.verify(raw, "", x509.ExtKeyUsageClientAuth)
		}
	}
	return c
}

// verify checks a peer's chain (leaf first, as sent) against the current CA
// pool (the system pool without one) for usage, and dnsName when not "".
func (s *Source) verify(raw [][]byte, dnsName string, usage x509.ExtKeyUsage) error {
	if len(raw) == 0 {
		return errors.New("tlsfiles: the peer presented no certificate")
	}
	certs := make([]*x509.Certificate, len(raw))
	for i, b := range raw {
		c, err := x509.ParseCertificate(b)
		if err != nil {
			return fmt.Errorf("tlsfiles: the peer's certificate does not parse: %w", err)
		}
		certs[i] = c
	}
	opts := x509.VerifyOptions{Roots: s.cur.Load().pool, DNSName: dnsName, Intermediates: x509.NewCertPool(),
		CurrentTime: s.now(), KeyUsages: []x509.ExtKeyUsage{usage}}
	for _, ic := range certs[1:] {
		opts.Intermediates.AddCert(ic)
	}
	if _, err := certs[0].Verify(opts); err != nil {
		return fmt.Errorf("tlsfiles: peer certificate %q refused: %w", certs[0].Subject, err)
	}
	return nil
}

// ClientConfig is a client's tls.Config presenting the current certificate
// (when there is one) and verifying the server's chain against the current
// CA (the system pool without one) and its name: serverName, or the host
// name dialled when serverName is "" (an IP address dialled needs
// serverName: it sends no SNI).
func (s *Source) ClientConfig(serverName string) *tls.Config {
	return s.clientConfig(serverName, false)
}

// PeerConfig is ClientConfig checking the server's chain only, not its
// name: for peers reached by addresses no certificate names (pod IPs), with
// a CA that signs nothing but those peers.
func (s *Source) PeerConfig() *tls.Config { return s.clientConfig("", true) }

func (s *Source) clientConfig(serverName string, chainOnly bool) *tls.Config {
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		if m := s.cur.Load(); m.cert != nil {
			return m.cert, nil
		}
		return &tls.Certificate{}, nil
	}
	// Verify against the pool current at this handshake: RootCAs is fixed
	// in a Config, so the check is done here (the standard one is off).
	c.InsecureSkipVerify = true
	c.VerifyConnection = func(cs tls.ConnectionState) error {
		raw := make([][]byte, len(cs.PeerCertificates))
		for i, pc := range cs.PeerCertificates {
			raw[i] = pc.Raw
		}
		name := ""
		if !chainOnly {
			if name = serverName; name == "" {
				name = cs.ServerName
			}
			if name == "" { // an IP address dialled: no SNI, so no name here
				return errors.New("tlsfiles: no server name to verify the server's certificate against (an IP address was dialled): configure the name or IP the certificate carries")
			}
		}
		return s.verify(raw, name, x509.ExtKeyUsageServerAuth)
	}
	return c
}
