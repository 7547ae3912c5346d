package harness

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/redistest"
)

// Coordinator is one coordinator process under test.
type Coordinator struct {
	t    testing.TB
	bin  string
	env  []string
	args []string
	addr string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
	logs    *logBuffer
	logMark int // where the process started last began writing to logs

	scheme string       // "http", or "https" with Options.ClientTLS
	client *http.Client // trusts the coordinator's certificate (Options.ClientTLS)
}

// Options configures a coordinator process.
type Options struct {
	RedisAddr string            // required: a real redis-server
	Env       map[string]string // extra RSC_* settings (override the defaults above)
	Args      []string
	// Port is the HTTP port to listen on; 0 picks a free one. A cluster
	// picks its nodes' ports up front, because every node's seeds name the
	// others before any of them runs.
	Port int
	// ClientTLS, for a coordinator serving HTTPS (RSC_HTTP_TLS_* in Env),
	// is how the harness reaches it: URL is then https:// and HTTPClient
	// uses this configuration.
	ClientTLS *tls.Config
}

// StartCoordinator builds and starts a coordinator on a free loopback port
// and waits until its health route answers. It is killed at test cleanup.
//
// A port it picked itself that another process takes between the pick and
// the bind is picked again (the process exits with "address already in
// use"); a port given in Options is the test's to keep free.
func StartCoordinator(t testing.TB, o Options) *Coordinator {
	t.Helper()
	for attempt := 1; ; attempt++ {
		picked := o
		if picked.Port == 0 {
			port, err := FreePort()
			if err != nil {
				t.Fatal(err)
			}
			picked.Port = port
		}
		c := launchCoordinator(t, picked)
		err := c.started()
		if err == nil {
			return c
		}
		if errors.Is(err, errPortTaken) && o.Port == 0 && attempt < 5 {
			t.Logf("coordinator: port %d was taken before it could listen; picking another", picked.Port)
			continue
		}
		t.Fatal(err)
	}
}

// errPortTaken: the process exited because its HTTP port was taken.
var errPortTaken = errors.New("harness: the coordinator's HTTP port was taken")

// launchCoordinator starts the process on o.Port (its callers pick it)
// without waiting for it to answer (waitAnswering does), so that several
// can start at the same moment.
func launchCoordinator(t testing.TB, o Options) *Coordinator {
	t.Helper()
	ReportReproduce(t)
	bin, err := Binary("coordinator")
	if err != nil {
		t.Fatal(err)
	}
	if o.Port == 0 {
		t.Fatal("harness: launchCoordinator needs a port")
	}
	port := o.Port
	env := []string{
		"RSC_HTTP_ADDR=127.0.0.1:" + fmt.Sprint(port),
		"RSC_REDIS_ADDRS=" + o.RedisAddr,
		"RSC_LOG_LEVEL=debug",
		// Every test starts its own empty redis-server: a new deployment, not a data loss.
		// Tests of data loss set it back to false in Env (the last value wins).
		"RSC_STORE_TRUST_EMPTY_STORE=true",
	}
	for k, v := range o.Env {
		env = append(env, k+"="+v)
	}
	c := &Coordinator{t: t, bin: bin, env: env, args: o.Args, addr: "127.0.0.1:" + fmt.Sprint(port), logs: &logBuffer{},
		scheme: "http", client: &http.Client{Timeout: 5 * time.Second}}
	if o.ClientTLS != nil {
		c.scheme = "https"
		c.client = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: o.ClientTLS}}
	}
	c.launch()
	t.Cleanup(func() {
		c.Kill()
		if t.Failed() {
			t.Logf("coordinator log (last 200 lines):\n%s", c.logs.tail(200))
		}
	})
	return c
}

// Pid is the process id of the running coordinator (0 if none).
func (c *Coordinator) Pid() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil || c.cmd.Process == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// URL is the coordinator's base URL.
func (c *Coordinator) URL() string { return c.scheme + "://" + c.addr }

// HTTPClient reaches the coordinator (trusting its certificate when it
// serves HTTPS).
func (c *Coordinator) HTTPClient() *http.Client { return c.client }

// Logs returns what the process wrote so far.
func (c *Coordinator) Logs() string { return c.logs.String() }

func (c *Coordinator) start() {
	c.t.Helper()
	c.launch()
	c.waitAnswering()
}

func (c *Coordinator) launch() {
	c.t.Helper()
	cmd := exec.Command(c.bin, c.args...)
	cmd.Env = append(append(environWithoutRSC(), "GOTRACEBACK=all"), c.env...) // a SIGQUIT dump shows every goroutine
	cmd.Stdout = c.logs
	cmd.Stderr = c.logs
	mark := len(c.logs.String())
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("start coordinator: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	c.mu.Lock()
	c.cmd, c.done, c.logMark = cmd, done, mark
	c.mu.Unlock()
}

// waitAnswering waits until the launched process' health route answers.
func (c *Coordinator) waitAnswering() {
	c.t.Helper()
	if err := c.started(); err != nil {
		c.t.Fatal(err)
	}
}

// started waits until the process started last listens and answers its
// health route. Only a process that printed its listening line counts: a
// health answer on its port before that comes from whoever holds the port.
func (c *Coordinator) started() error {
	c.mu.Lock()
	done, mark := c.done, c.logMark
	c.mu.Unlock()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			out := c.logs.String()[mark:]
			if strings.Contains(out, `msg="cannot listen"`) && strings.Contains(out, "address already in use") {
				return fmt.Errorf("%w: coordinator exited at start:\n%s", errPortTaken, c.logs.tail(100))
			}
			return fmt.Errorf("coordinator exited at start:\n%s", c.logs.tail(100))
		default:
		}
		if strings.Contains(c.logs.String()[mark:], "coordinator listening on ") {
			resp, err := c.client.Get(c.URL() + "/coord/v1/monitoring/health")
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("coordinator did not answer within 60s:\n%s", c.logs.tail(100))
}

// Kill sends SIGKILL and waits for the process to exit (kill -9).
func (c *Coordinator) Kill() { c.signal(syscall.SIGKILL) }

// Pause freezes the process with SIGSTOP: its sockets stay open and the
// kernel still accepts connections, but nothing answers (a partitioned or
// stalled node, as seen from its peers).
func (c *Coordinator) Pause() { c.send(syscall.SIGSTOP) }

// Resume continues a paused process with SIGCONT.
func (c *Coordinator) Resume() { c.send(syscall.SIGCONT) }

// Exited reports whether the process started last has exited (by itself,
// or by a signal).
func (c *Coordinator) Exited() bool {
	c.mu.Lock()
	done := c.done
	c.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// send delivers sig without waiting for the process to react.
func (c *Coordinator) send(sig syscall.Signal) {
	c.mu.Lock()
	cmd := c.cmd
	c.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Signal(sig)
	}
}

// Stop sends SIGTERM and waits for a graceful exit.
func (c *Coordinator) Stop() { c.signal(syscall.SIGTERM) }

func (c *Coordinator) signal(sig syscall.Signal) {
	c.mu.Lock()
	cmd, done := c.cmd, c.done
	c.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	if sig != syscall.SIGKILL {
		_ = cmd.Process.Signal(syscall.SIGCONT) // a paused process cannot act on SIGTERM
	}
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		// SIGQUIT first: the Go runtime writes every goroutine's stack to
		// the process log, so a stuck shutdown shows where it was stuck.
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
}

// Restart starts the process again on the same port with the same settings.
func (c *Coordinator) Restart() {
	c.t.Helper()
	c.Kill()
	c.start()
}

// RestartGracefully stops the process with SIGTERM (it releases its groups)
// and starts it again on the same port with the same settings.
func (c *Coordinator) RestartGracefully() {
	c.t.Helper()
	c.Stop()
	c.start()
}

// FreePort is a free loopback TCP port outside the kernel's ephemeral
// range (see redistest.FreePort: a process restarted on it finds it free).
func FreePort() (int, error) { return redistest.FreePort() }

type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) tail(n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(l.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// environWithoutRSC is this process's environment without RSC_* variables:
// the coordinator refuses RSC_* names that look like its settings and warns
// about the others, and a test's own knobs
// (RSC_CHAOS_SEED, …) or an operator's shell must not leak into it.
func environWithoutRSC() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RSC_") {
			out = append(out, kv)
		}
	}
	return out
}

// SentinelEnv is the coordinator's setting for a primary found through the
// Sentinels at addrs under master, in place of redis.addrs: merge it into
// Options.Env.
func SentinelEnv(master string, addrs []string) map[string]string {
	return map[string]string{
		"RSC_REDIS_ADDRS": "", "RSC_REDIS_SENTINEL_MASTER_NAME": master,
		"RSC_REDIS_SENTINEL_ADDRS": strings.Join(addrs, ","),
	}
}
