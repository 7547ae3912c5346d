package harness

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redisstream/coordinator/test/recorder"
)

// MemberProc is one member process (test/memberproc) whose records go to a
// shared recorder.
type MemberProc struct {
	ID   string
	t    testing.TB
	cmd  *exec.Cmd
	done chan struct{}
	logs *logBuffer
	once sync.Once
}

// MemberOptions configures a member process.
type MemberOptions struct {
	ID              string
	CoordinatorURLs []string
	RedisAddr       string
	// RedisMasterName and RedisSentinels, when set, make the member find
	// the Redis primary through Sentinel (RedisAddr unused).
	RedisMasterName string
	RedisSentinels  []string
	Stream, Group   string
	Work            time.Duration // simulated work per entry
	// Transport is how the member heartbeats: "" or "http" (CoordinatorURLs),
	// or "redis" (the Redis mailbox on RedisAddr, principal MailboxPrincipal,
	// "-" when empty: the coordinator runs without member authentication).
	Transport        string
	MailboxPrincipal string
	// ExactlyOnce runs the member's pipeline through a transaction
	// (test/memberproc -exactly-once): per entry, an output entry and a
	// running sum, committed with the acknowledgement.
	ExactlyOnce bool
	// InstanceID makes the member static (membersdk.ConsumerConfig.InstanceID).
	InstanceID string
	// Concurrency is membersdk.ConsumerConfig.Concurrency, reported as
	// runtimeMaxConcurrency (0: the member's default, 4).
	Concurrency int
}

// StartMember starts a member process; its records go to rec. It is killed
// at test cleanup.
func StartMember(t testing.TB, rec *recorder.Recorder, o MemberOptions) *MemberProc {
	t.Helper()
	bin, err := BinaryOf("./test/memberproc")
	if err != nil {
		t.Fatal(err)
	}
	if o.Stream == "" {
		o.Stream = "orders"
	}
	if o.Group == "" {
		o.Group = "workers"
	}
	cmd := exec.Command(bin, "--coordinator", strings.Join(o.CoordinatorURLs, ","), "--redis", o.RedisAddr,
		"--stream", o.Stream, "--group", o.Group, "--id", o.ID, "--work", o.Work.String(), "--log", "info")
	if len(o.RedisSentinels) > 0 {
		cmd.Args = append(cmd.Args, "--redis-master-name", o.RedisMasterName, "--redis-sentinel", strings.Join(o.RedisSentinels, ","))
	}
	if o.Transport != "" {
		cmd.Args = append(cmd.Args, "--transport", o.Transport)
	}
	if o.InstanceID != "" {
		cmd.Args = append(cmd.Args, "--instance-id", o.InstanceID)
	}
	if o.ExactlyOnce {
		cmd.Args = append(cmd.Args, "--exactly-once")
	}
	if o.Concurrency > 0 {
		cmd.Args = append(cmd.Args, "--concurrency", strconv.Itoa(o.Concurrency))
	}
	if o.MailboxPrincipal != "" {
		cmd.Args = append(cmd.Args, "--mailbox-principal", o.MailboxPrincipal)
	}
	cmd.Env = os.Environ()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	m := &MemberProc{ID: o.ID, t: t, cmd: cmd, done: make(chan struct{}), logs: &logBuffer{}}
	cmd.Stderr = m.logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start member %s: %v", o.ID, err)
	}
	go func() {
		rec.Read(stdout, func(line string) { _, _ = m.logs.Write([]byte(line + "\n")) })
		_ = cmd.Wait()
		close(m.done)
	}()
	t.Cleanup(func() {
		m.Kill()
		if t.Failed() {
			t.Logf("member %s log (last 60 lines):\n%s", m.ID, m.logs.tail(60))
		}
	})
	return m
}

// Kill sends SIGKILL (a crash) and waits for the exit.
func (m *MemberProc) Kill() { m.signalWait(syscall.SIGKILL, 5*time.Second) }

// Leave sends SIGTERM (graceful leave) and waits up to timeout for the exit.
func (m *MemberProc) Leave(timeout time.Duration) bool { return m.signalWait(syscall.SIGTERM, timeout) }

// Pause freezes the process (SIGSTOP); Resume continues it (SIGCONT).
func (m *MemberProc) Pause()  { _ = m.cmd.Process.Signal(syscall.SIGSTOP) }
func (m *MemberProc) Resume() { _ = m.cmd.Process.Signal(syscall.SIGCONT) }

// Exited reports whether the process has exited.
func (m *MemberProc) Exited() bool {
	select {
	case <-m.done:
		return true
	default:
		return false
	}
}

func (m *MemberProc) signalWait(sig syscall.Signal, timeout time.Duration) bool {
	if m.Exited() {
		return true
	}
	_ = m.cmd.Process.Signal(syscall.SIGCONT)
	_ = m.cmd.Process.Signal(sig)
	select {
	case <-m.done:
		return true
	case <-time.After(timeout):
		_ = m.cmd.Process.Kill()
		<-m.done
		return false
	}
}

// Logs returns what the process wrote so far (its log on stderr, and stdout
// lines the recorder did not take).
func (m *MemberProc) Logs() string { return m.logs.String() }
