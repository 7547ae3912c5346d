package chaos

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// injected is a fault as it actually happened.
type injected struct {
	Fault
	Start     time.Time `json:"start"`     // the fault was injected (signal sent, proxy delay set)
	End       time.Time `json:"end"`       // recovery began (SIGCONT sent, restart started)
	Recovered time.Time `json:"recovered"` // recovery finished (process answering again)
	// Outcome is a reshard operation's answer (see injectReshard), or what
	// a redis-failover did (which primary died, which took over, when).
	Outcome string `json:"outcome,omitempty"`
}

type action struct {
	at    time.Duration
	end   bool
	fault int
}

// runSchedule injects faults in real time, in the test goroutine, starting
// now: each fault at its At, recovered at At+For. Actions that take time
// (restarting a coordinator waits for its health route, a graceful stop
// waits for the node to hand over and exit) delay the ones after them, in
// order; a fault injected late still lasts its full For (a member pause
// must outlast the lease), so it is recovered no sooner than For after it
// was actually injected. The actual times are recorded.
func (c *cluster) runSchedule(faults []Fault) []injected {
	var acts []action
	for i, f := range faults {
		acts = append(acts, action{at: f.At, fault: i})
		if f.Kind != FaultReshard { // instantaneous: nothing to recover
			acts = append(acts, action{at: f.At + f.For, end: true, fault: i})
		}
	}
	sort.SliceStable(acts, func(i, j int) bool {
		if acts[i].at != acts[j].at {
			return acts[i].at < acts[j].at
		}
		return acts[i].end && !acts[j].end // recover before the next fault starts
	})
	out := make([]injected, len(faults))
	start := time.Now()
	for _, a := range acts {
		f := faults[a.fault]
		due := start.Add(a.at)
		if a.end && out[a.fault].Start.Add(f.For).After(due) {
			due = out[a.fault].Start.Add(f.For)
		}
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		if a.end {
			out[a.fault].End = time.Now()
			c.recover(f)
			out[a.fault].Recovered = time.Now()
			c.t.Logf("chaos %6.2fs recovered %s %s", time.Since(start).Seconds(), f.Kind, f.Target)
		} else if f.Kind == FaultReshard {
			out[a.fault] = injected{Fault: f, Start: time.Now()}
			out[a.fault].Outcome = c.injectReshard(f)
			out[a.fault].End, out[a.fault].Recovered = time.Now(), time.Now()
			c.t.Logf("chaos %6.2fs reshard   %s: %s", time.Since(start).Seconds(), f, out[a.fault].Outcome)
		} else {
			out[a.fault] = injected{Fault: f, Start: time.Now()}
			out[a.fault].Outcome = c.inject(f)
			c.t.Logf("chaos %6.2fs injected  %s %s", time.Since(start).Seconds(), f, out[a.fault].Outcome)
		}
	}
	return out
}

func index(target string) int {
	i, _ := strconv.Atoi(target[strings.LastIndexByte(target, '-')+1:])
	return i
}

// inject starts fault f; what it says is the fault's outcome (empty for
// most kinds).
func (c *cluster) inject(f Fault) string {
	if nodeFault(f.Kind) {
		c.injectNode(f)
		return ""
	}
	switch f.Kind {
	case FaultMemberKill:
		c.member(f.Target).Kill()
	case FaultMemberPause:
		c.member(f.Target).Pause()
	case FaultRedisStop:
		c.redis.Stop()
	case FaultRedisFailover:
		from, to, took := c.sentinels.KillPrimary()
		c.failedOver = append(c.failedOver, from)
		return fmt.Sprintf("primary %s killed; %s promoted and taking writes %s later", from, to, took.Round(time.Millisecond))
	case FaultSlowHeartbeats:
		c.proxies[index(f.Target)].SetDelay(f.Delay)
	}
	return ""
}

func (c *cluster) recover(f Fault) {
	if nodeFault(f.Kind) {
		c.recoverNode(f)
		return
	}
	switch f.Kind {
	case FaultMemberKill:
		c.startMember(f.Target) // same member id, a new process
	case FaultMemberPause:
		c.member(f.Target).Resume()
	case FaultRedisStop:
		c.redis.Restart()
	case FaultRedisFailover:
		// Started again empty (no persistence, as a cache-less replica set
		// would): the Sentinels name another primary, so nobody writes to
		// it, and they make it a replica of the new one.
		c.sentinels.Node(c.failedOver[len(c.failedOver)-1]).Restart()
	case FaultSlowHeartbeats:
		c.proxies[index(f.Target)].SetDelay(0)
	}
}

// injectNode takes a coordinator process down: kill -9, SIGSTOP, or SIGTERM
// (graceful: it hands its groups over and exits; waits for the exit).
func (c *cluster) injectNode(f Fault) {
	i := index(f.Target)
	n, co := c.nodes[i], c.coords[i]
	n.mu.Lock()
	defer n.mu.Unlock()
	c.noteFault(i, f, time.Now())
	switch f.Kind {
	case FaultCoordinatorKill:
		n.down = true
		co.Kill()
	case FaultCoordinatorRestart:
		n.down = true
		start := time.Now()
		co.Stop() // SIGKILL after 15 s without an exit
		took := time.Since(start)
		c.supMu.Lock()
		c.stops = append(c.stops, gracefulStop{Node: f.Target, At: start, ExitMs: took.Milliseconds(), Killed: took >= gracefulStopLimit})
		c.supMu.Unlock()
	case FaultCoordinatorPause:
		co.Pause() // a paused process cannot exit; an evicted one exits after SIGCONT
	}
}

// recoverNode brings a coordinator process back: a new process on the same
// ports after a kill or a graceful stop, SIGCONT after a pause.
func (c *cluster) recoverNode(f Fault) {
	i := index(f.Target)
	n, co := c.nodes[i], c.coords[i]
	n.mu.Lock()
	defer n.mu.Unlock()
	switch f.Kind {
	case FaultCoordinatorKill, FaultCoordinatorRestart:
		n.logFrom = len(co.Logs())
		co.Restart() // the old process has exited: only the start
		n.down = false
	case FaultCoordinatorPause:
		co.Resume()
	}
}

// gracefulStopLimit is how long harness.Coordinator.Stop waits for a
// process to exit after SIGTERM before it kills it.
const gracefulStopLimit = 15 * time.Second

// gracefulStop is one SIGTERM of a coordinator-restart fault: how long the
// node took to hand its groups over and exit, and whether it had to be
// killed instead.
type gracefulStop struct {
	Node   string    `json:"node"`
	At     time.Time `json:"at"`
	ExitMs int64     `json:"exitMs"`
	Killed bool      `json:"killed"`
}
