package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/test/recorder"
	"github.com/redisstream/coordinator/test/seqprod"
)

const (
	heartbeatInterval = 500 * time.Millisecond
	leaseTTL          = 3 * time.Second
	rebalanceTimeout  = 10 * time.Second
)

type demo struct {
	ctx       context.Context // done when the demo is interrupted
	transport string          // how members heartbeat: "http" or "redis" (the mailbox)
	dir       string
	bins      map[string]string
	redisAddr string
	redisCmd  *exec.Cmd
	redisDone chan struct{} // closed when redisCmd exited
	embedded  *miniredis.Miniredis
	coordURL  string
	coordCmd  *exec.Cmd
	coordDone chan struct{} // closed when coordCmd exited
	rdb       *redis.Client
	http      *http.Client
	rec       *recorder.Recorder
	reown     time.Duration

	mu      sync.Mutex
	members map[string]*exec.Cmd
	waits   sync.WaitGroup
}

func newDemo(ctx context.Context, transport string) (*demo, error) {
	dir, err := os.MkdirTemp("", "rsc-demo-")
	if err != nil {
		return nil, err
	}
	d := &demo{ctx: ctx, transport: transport, dir: dir, bins: map[string]string{}, rec: recorder.New(), members: map[string]*exec.Cmd{},
		http: &http.Client{Timeout: 5 * time.Second}}
	fmt.Printf("Building the coordinator and the member process (logs and report in %s)\n", dir)
	for name, pkg := range map[string]string{"coordinator": "./cmd/coordinator", "memberproc": "./test/memberproc"} {
		out := filepath.Join(d.binDir(), name)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
		cmd.Dir = repoRoot()
		dieWithParent(cmd)
		if b, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
		d.bins[name] = out
	}
	if err := d.startRedis(); err != nil {
		return d, err
	}
	d.rdb = redis.NewClient(&redis.Options{Addr: d.redisAddr})
	return d, d.startCoordinator()
}

func repoRoot() string {
	if wd, err := os.Getwd(); err == nil {
		if _, err := os.Stat(filepath.Join(wd, "go.mod")); err == nil {
			return wd
		}
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func (d *demo) startRedis() error {
	if path, err := exec.LookPath("redis-server"); err == nil {
		// redis-server cannot be told to pick its own port (0 turns TCP
		// off), so a port taken between the pick and its bind is picked again.
		var lastErr error
		for range 5 {
			port := freePort()
			d.redisAddr = "127.0.0.1:" + strconv.Itoa(port)
			d.redisCmd = exec.Command(path, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", d.dir)
			dieWithParent(d.redisCmd)
			d.redisCmd.Stdout, _ = os.Create(filepath.Join(d.dir, "redis.log"))
			if d.redisDone, err = start(d.redisCmd); err != nil {
				return fmt.Errorf("start redis-server: %w", err)
			}
			if lastErr = d.waitTCP(d.redisAddr, d.redisDone, 10*time.Second); lastErr == nil {
				fmt.Printf("Redis: redis-server on %s\n", d.redisAddr)
				return nil
			}
			if !closed(d.redisDone) {
				return lastErr
			}
		}
		return fmt.Errorf("redis-server: %w (see %s)", lastErr, filepath.Join(d.dir, "redis.log"))
	}
	d.embedded = miniredis.NewMiniRedis()
	if err := d.embedded.StartAddr("127.0.0.1:0"); err != nil {
		return err
	}
	d.redisAddr = d.embedded.Addr()
	fmt.Printf("Redis: redis-server not on PATH, using an embedded in-process Redis on %s (development only)\n", d.redisAddr)
	return nil
}

func (d *demo) startCoordinator() error {
	cmd := exec.Command(d.bins["coordinator"])
	dieWithParent(cmd)
	cmd.Env = append(os.Environ(),
		"RSC_HTTP_ADDR=127.0.0.1:0", // it prints the port it got
		"RSC_REDIS_ADDRS="+d.redisAddr,
		"RSC_STORE_TRUST_EMPTY_STORE=true", // the demo's own fresh redis-server
		"RSC_COORDINATION_HEARTBEAT_INTERVAL="+heartbeatInterval.String(),
		"RSC_COORDINATION_MEMBER_LEASE_TTL="+leaseTTL.String(),
		"RSC_COORDINATION_REBALANCE_TIMEOUT="+rebalanceTimeout.String(),
	)
	if d.transport == "redis" {
		// No member authentication here: every member speaks for "-".
		cmd.Env = append(cmd.Env, "RSC_MAILBOX_ENABLED=true")
	}
	logPath := filepath.Join(d.dir, "coordinator.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if d.coordDone, err = start(cmd); err != nil {
		return fmt.Errorf("start coordinator: %w", err)
	}
	d.coordCmd = cmd
	addr, err := d.waitListeningLine(logPath, d.coordDone, 30*time.Second)
	if err != nil {
		return err
	}
	d.coordURL = "http://" + addr
	fmt.Printf("Coordinator: %s (heartbeat %s, lease %s); %s\n", d.coordURL, heartbeatInterval, leaseTTL, d.transportSays())
	return nil
}

// start starts cmd and returns a channel closed when it exits.
func start(cmd *exec.Cmd) (chan struct{}, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	return done, nil
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// waitListeningLine waits for the coordinator's "coordinator listening on
// <scheme>://<addr>" line in its log and returns addr.
func (d *demo) waitListeningLine(logPath string, exited chan struct{}, timeout time.Duration) (string, error) {
	const prefix = "coordinator listening on http://"
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && d.ctx.Err() == nil {
		b, _ := os.ReadFile(logPath)
		for _, line := range strings.Split(string(b), "\n") {
			if addr, ok := strings.CutPrefix(line, prefix); ok && strings.TrimSpace(addr) != "" {
				return strings.TrimSpace(addr), nil
			}
		}
		if closed(exited) {
			return "", fmt.Errorf("the coordinator exited at start; its log: %s", logPath)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "", fmt.Errorf("the coordinator did not listen within %s; its log: %s", timeout, logPath)
}

// waitTCP waits until addr accepts connections, or the process behind it
// exits (exited is closed), or timeout.
func (d *demo) waitTCP(addr string, exited chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && d.ctx.Err() == nil {
		if closed(exited) {
			return fmt.Errorf("the process for %s exited at start", addr)
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s did not accept connections within %s", addr, timeout)
}

func (d *demo) startMember(id string) error {
	cmd := exec.Command(d.bins["memberproc"], "--coordinator", d.coordURL, "--redis", d.redisAddr,
		"--stream", streamPrefix, "--group", groupName, "--id", id, "--transport", d.transport)
	dieWithParent(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(d.dir, id+".log"))
	if err != nil {
		return err
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", id, err)
	}
	d.mu.Lock()
	d.members[id] = cmd
	d.mu.Unlock()
	d.waits.Add(1)
	go func() {
		defer d.waits.Done()
		d.rec.Read(bufio.NewReader(stdout), func(line string) { fmt.Fprintln(logf, line) })
		_ = cmd.Wait()
	}()
	return nil
}

func (d *demo) kill(id string) {
	d.mu.Lock()
	cmd := d.members[id]
	delete(d.members, id)
	d.mu.Unlock()
	if cmd != nil {
		_ = cmd.Process.Signal(syscall.SIGKILL)
	}
}

// stopMembers asks every member to leave (SIGTERM) and waits for them.
func (d *demo) stopMembers() {
	d.mu.Lock()
	for _, cmd := range d.members {
		_ = cmd.Process.Signal(syscall.SIGTERM)
	}
	d.members = map[string]*exec.Cmd{}
	d.mu.Unlock()
	done := make(chan struct{})
	go func() { d.waits.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		fmt.Println("members did not exit within 30s")
	}
}

// startProducer publishes numbered entries (test/seqprod) at publishRate.
func (d *demo) startProducer() (*seqprod.Producer, error) {
	p, err := membersdk.NewProducer(membersdk.ProducerConfig{
		CoordinatorURLs: []string{d.coordURL}, StreamPrefix: streamPrefix, ConsumerGroup: groupName, Redis: d.rdb,
	})
	if err != nil {
		return nil, err
	}
	key := func(seq int64) string { return "customer-" + strconv.FormatInt(seq%97, 10) }
	return seqprod.Start(p, publishRate, key, func(seq int64, err error) { fmt.Printf("publish %d: %v (retrying)\n", seq, err) }), nil
}

// transportSays tells how the members heartbeat.
func (d *demo) transportSays() string {
	if d.transport == "redis" {
		return "members heartbeat through the Redis mailbox"
	}
	return "members heartbeat over HTTP"
}

// binDir holds the built binaries (most of the directory's size).
func (d *demo) binDir() string { return filepath.Join(d.dir, "bin") }

// killMembers kills every member at once (SIGKILL).
func (d *demo) killMembers() {
	d.mu.Lock()
	for _, cmd := range d.members {
		_ = cmd.Process.Kill()
	}
	d.members = map[string]*exec.Cmd{}
	d.mu.Unlock()
	d.waits.Wait()
}

// close stops every process; interrupted: at once (SIGKILL), else
// gracefully (members leave, the coordinator hands over).
func (d *demo) close(interrupted bool) {
	if interrupted {
		d.killMembers()
		if d.coordCmd != nil {
			_ = d.coordCmd.Process.Kill()
			<-d.coordDone
			d.coordCmd = nil
		}
	}
	d.stopMembers()
	if d.coordCmd != nil {
		_ = d.coordCmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.coordDone:
		case <-time.After(10 * time.Second):
			_ = d.coordCmd.Process.Kill()
		}
	}
	if d.rdb != nil {
		_ = d.rdb.Close()
	}
	if d.redisCmd != nil {
		_ = d.redisCmd.Process.Kill()
		<-d.redisDone
	}
	if d.embedded != nil {
		d.embedded.Close()
	}
}
