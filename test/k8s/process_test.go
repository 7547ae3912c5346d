package k8s

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// process is a child process with its output kept in memory.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	out  strings.Builder
}

// startProcess starts bin with args; env nil = this process's environment.
func startProcess(name, bin string, env []string, args ...string) (*process, error) {
	return startCmd(name, exec.Command(bin, args...), env)
}

func startCmd(name string, cmd *exec.Cmd, env []string) (*process, error) {
	p := &process{name: name, cmd: cmd, done: make(chan struct{})}
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = p, p
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p, nil
}

func (p *process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

// Logs is everything the process wrote so far.
func (p *process) Logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// Tail is the last n lines of Logs.
func (p *process) Tail(n int) string {
	lines := strings.Split(strings.TrimRight(p.Logs(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Exited reports whether the process has ended.
func (p *process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Wait waits up to timeout for the process to end; false if it still runs.
func (p *process) Wait(timeout time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// ExitCode is the exit status of an ended process (-1 if killed by a signal
// or still running).
func (p *process) ExitCode() int {
	if !p.Exited() {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// Kill sends SIGKILL and waits for the end.
func (p *process) Kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Stop sends SIGTERM, and SIGKILL after 15 s.
func (p *process) Stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if !p.Wait(15 * time.Second) {
		p.Kill()
	}
}
