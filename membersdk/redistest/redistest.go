package redistest

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// EnvAllowNoRedis names the environment variable that turns a missing
// redis-server binary into a skip instead of a failure.
const EnvAllowNoRedis = "RSC_TEST_ALLOW_NO_REDIS"

// Options tune the started server.
type Options struct {
	// Persist keeps data across Stop/Restart (append-only file, fsync always).
	// Without it a restarted server comes back empty.
	Persist bool
	// Binary overrides the redis-server path (default: looked up on PATH).
	Binary string
	// StartTimeout bounds the wait for the first PING (default 10s).
	StartTimeout time.Duration
	// Args are extra redis-server arguments (e.g. "--cluster-enabled", "yes").
	// An argument "{dir}" is replaced by the server's data directory.
	Args []string
	// TLS, when set, serves TLS only (--tls-port; no plaintext port).
	TLS *TLS

	sentinel string // StartSentinels: run as a Sentinel with this configuration
	noPing   bool   // the start waits for the port to accept connections, not for PING
}

// TLS makes the server speak TLS only, with a certificate of a test CA.
type TLS struct {
	CertFile, KeyFile string // the server's certificate and key
	CAFile            string // the CA client certificates must chain to (--tls-ca-cert-file)
	AuthClients       bool   // --tls-auth-clients yes: a client without a certificate of CAFile is refused
	// Client is how Client, NewClient and the start's PING connect: it must
	// trust the server's certificate and, with AuthClients, present one.
	Client *tls.Config
}

// Server is one redis-server process owned by a test.
type Server struct {
	t    testing.TB
	opts Options
	bin  string
	dir  string
	port int

	// sentinel is the configuration a Sentinel starts from (sentinel.go);
	// empty for a data node.
	sentinel string

	mu     sync.Mutex
	cmd    *exec.Cmd
	done   chan struct{} // closed when cmd has exited
	log    *syncWriter
	client *redis.Client
}

// Start starts a non-persistent redis-server for t.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartWithOptions(t, Options{})
}

// StartWithOptions starts a redis-server for t with opts.
func StartWithOptions(t testing.TB, opts Options) *Server {
	t.Helper()
	bin := opts.Binary
	if bin == "" {
		var err error
		bin, err = exec.LookPath("redis-server")
		if err != nil {
			if os.Getenv(EnvAllowNoRedis) == "1" {
				t.Skipf("redistest: redis-server not found on PATH (%v); skipping because %s=1", err, EnvAllowNoRedis)
			}
			t.Fatalf("redistest: redis-server not found on PATH (%v): install it (e.g. apt-get install redis-server) or set %s=1 to skip Redis tests", err, EnvAllowNoRedis)
		}
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 10 * time.Second
	}
	s := &Server{t: t, opts: opts, bin: bin, dir: t.TempDir(), sentinel: opts.sentinel}
	t.Cleanup(s.cleanup)

	var lastErr error
	for attempt := 0; attempt < 5; attempt++ { // a free port can be taken between probe and bind
		port, err := FreePort()
		if err != nil {
			t.Fatalf("redistest: find free port: %v", err)
		}
		s.port = port
		if lastErr = s.start(); lastErr == nil {
			return s
		}
	}
	t.Fatalf("redistest: start redis-server: %v", lastErr)
	return nil
}

// Addr is "127.0.0.1:port"; it stays the same across Stop/Restart.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Port is the TCP port of the server.
func (s *Server) Port() int { return s.port }

// Client returns a go-redis client for the server, shared by callers and
// closed in t.Cleanup. It reconnects by itself after Restart.
func (s *Server) Client() *redis.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil {
		s.client = redis.NewClient(&redis.Options{Addr: s.Addr(), TLSConfig: s.clientTLS()})
	}
	return s.client
}

// NewClient returns a new client the caller owns (and must close), with
// opts applied on top of the server address. opts may be nil.
func (s *Server) NewClient(opts *redis.Options) *redis.Client {
	o := redis.Options{}
	if opts != nil {
		o = *opts
	}
	o.Addr = s.Addr()
	if o.TLSConfig == nil {
		o.TLSConfig = s.clientTLS()
	}
	return redis.NewClient(&o)
}

// Stop kills the server (SIGKILL) and waits until it has exited. The port
// stays reserved for Restart. Call it from the test goroutine.
func (s *Server) Stop() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.killLocked()
}

// Restart starts the server again on the same port (after Stop, or kills a
// running one first). With Options.Persist the data comes back. Call it from
// the test goroutine.
func (s *Server) Restart() {
	s.t.Helper()
	s.mu.Lock()
	s.killLocked()
	s.mu.Unlock()
	var err error
	for attempt := 0; attempt < 20; attempt++ { // the old socket may linger briefly
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("redistest: restart redis-server on port %d: %v", s.port, err)
}

// Running reports whether the process is up.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd != nil
}

func (s *Server) start() error {
	port := []string{"--port", strconv.Itoa(s.port)}
	if t := s.opts.TLS; t != nil {
		auth := "no"
		if t.AuthClients {
			auth = "yes"
		}
		port = []string{"--port", "0", "--tls-port", strconv.Itoa(s.port), "--tls-cert-file", t.CertFile, "--tls-key-file", t.KeyFile,
			"--tls-ca-cert-file", t.CAFile, "--tls-auth-clients", auth}
	}
	args := append(port,
		"--bind", "127.0.0.1",
		"--dir", s.dir,
		"--save", "",
		"--daemonize", "no",
		"--protected-mode", "no",
		"--loglevel", "warning",
	)
	if s.opts.Persist {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	for _, a := range s.opts.Args {
		args = append(args, strings.ReplaceAll(a, "{dir}", s.dir))
	}
	if s.sentinel != "" {
		conf, err := s.sentinelConf()
		if err != nil {
			return err
		}
		args = []string{conf, "--sentinel", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
			"--daemonize", "no", "--protected-mode", "no", "--loglevel", "warning"}
	}
	logw := &syncWriter{w: &bytes.Buffer{}}
	cmd := exec.Command(s.bin, args...)
	cmd.Stdout = logw
	cmd.Stderr = logw
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("exec %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()

	wait := waitPing
	if s.opts.noPing {
		wait = waitListening
	}
	if err := wait(s.Addr(), s.clientTLS(), done, s.opts.StartTimeout); err != nil {
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("%w; server log:\n%s", err, logw.String())
	}
	s.mu.Lock()
	s.cmd, s.done, s.log = cmd, done, logw
	s.mu.Unlock()
	return nil
}

func (s *Server) killLocked() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd, s.done = nil, nil
}

func (s *Server) cleanup() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client != nil {
		_ = s.client.Close()
		s.client = nil
	}
	s.killLocked()
}

// waitPing polls addr until it answers PING, the process exits, or timeout.
// clientTLS is Options.TLS.Client (nil without TLS).
func (s *Server) clientTLS() *tls.Config {
	if s.opts.TLS == nil {
		return nil
	}
	return s.opts.TLS.Client
}

func waitPing(addr string, tc *tls.Config, exited <-chan struct{}, timeout time.Duration) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond, TLSConfig: tc})
	defer c.Close()
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("redis-server exited during start-up")
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		err = c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("no PING answer on %s within %s: %v", addr, timeout, err)
}

// waitListening polls addr until it accepts a connection, the process
// exits, or timeout.
func waitListening(addr string, _ *tls.Config, exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("redis-server exited during start-up")
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			_ = c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens on %s within %s", addr, timeout)
}

// Log returns what the current (or last) redis-server process printed.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log == nil {
		return ""
	}
	return s.log.String()
}

// DataDir is the server's working directory (AOF files with Persist).
func (s *Server) DataDir() string { return filepath.Clean(s.dir) }

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.String()
}
