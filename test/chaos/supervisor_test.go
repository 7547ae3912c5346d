package chaos

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// node is what the schedule and the supervisor share about one coordinator
// process. mu serialises what they do to it (a kill, a restart); down is
// set while the schedule keeps the process stopped on purpose (kill -9 or
// SIGTERM, until its recovery), so the supervisor leaves it alone then.
type node struct {
	mu      sync.Mutex
	down    bool
	logFrom int // length of the node's log when its current process started
}

// supervised is one restart by the supervisor: the process had exited on
// its own (an evicted cluster node exits with code 3) and was started again.
type supervised struct {
	Node       string    `json:"node"`
	ExitedBy   time.Time `json:"exitedBy"`   // the supervisor saw it had exited
	Answering  time.Time `json:"answering"`  // the new process answered its health route
	AfterFault string    `json:"afterFault"` // the last fault injected on this node before the exit
	Reason     string    `json:"reason"`     // the process's last log line naming the eviction, if any
	Evicted    bool      `json:"evicted"`    // the log says the cluster evicted it
}

// supervise restarts, like systemd with Restart=always would, every
// coordinator process that exited on its own, until stop is closed. It
// polls every interval.
func (c *cluster) supervise(interval time.Duration, stop <-chan struct{}) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		for i := range c.coords {
			c.superviseNode(i)
		}
	}
}

func (c *cluster) superviseNode(i int) {
	n := c.nodes[i]
	if !n.mu.TryLock() { // the schedule is acting on it
		return
	}
	co := c.coords[i]
	if n.down || !co.Exited() {
		n.mu.Unlock()
		return
	}
	s := supervised{Node: fmt.Sprintf("coordinator-%d", i), ExitedBy: time.Now(), AfterFault: c.lastFaultOn(i)}
	s.Reason, s.Evicted = exitReason(co.Logs()[min(n.logFrom, len(co.Logs())):])
	c.t.Logf("supervisor: %s exited on its own (%s); starting it again", s.Node, s.Reason)
	// The harness fails the test (t.Fatalf, which ends the calling
	// goroutine) when a process does not come up; a goroutine of its own
	// keeps the supervisor running and the lock released in that case.
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer n.mu.Unlock()
		n.logFrom = len(co.Logs())
		co.Restart()
	}()
	<-done
	s.Answering = time.Now()
	c.supMu.Lock()
	c.restarts = append(c.restarts, s)
	c.supMu.Unlock()
	c.t.Logf("supervisor: %s answering again after %s", s.Node, s.Answering.Sub(s.ExitedBy).Round(time.Millisecond))
}

// exitReason picks the log line that says why the process exited.
func exitReason(log string) (string, bool) {
	lines := strings.Split(strings.TrimSpace(log), "\n")
	for j := len(lines) - 1; j >= 0; j-- {
		if strings.Contains(strings.ToLower(lines[j]), "evicted") {
			l := lines[j]
			if len(l) > 400 {
				l = l[:400]
			}
			return l, true
		}
	}
	if len(lines) > 0 && lines[len(lines)-1] != "" {
		l := lines[len(lines)-1]
		if len(l) > 400 {
			l = l[:400]
		}
		return "no eviction line; last line: " + l, false
	}
	return "no log", false
}

// lastFaultOn names the last fault the schedule injected on coordinator i.
func (c *cluster) lastFaultOn(i int) string {
	c.supMu.Lock()
	defer c.supMu.Unlock()
	return c.lastFault[i]
}

func (c *cluster) noteFault(i int, f Fault, at time.Time) {
	c.supMu.Lock()
	defer c.supMu.Unlock()
	c.lastFault[i] = fmt.Sprintf("%s at %s for %s", f.Kind, at.UTC().Format("15:04:05.000"), f.For)
}

// supervisorRestarts returns the restarts so far.
func (c *cluster) supervisorRestarts() []supervised {
	c.supMu.Lock()
	defer c.supMu.Unlock()
	return append([]supervised{}, c.restarts...)
}
