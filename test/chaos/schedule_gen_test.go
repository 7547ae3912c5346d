package chaos

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"time"
)

// FaultKind names one kind of fault the schedule injects.
type FaultKind string

const (
	// FaultMemberKill kills a member process with SIGKILL and starts it
	// again (same member id) after For.
	FaultMemberKill FaultKind = "member-kill"
	// FaultMemberPause freezes a member process (SIGSTOP) for For, longer
	// than its lease, then continues it (SIGCONT): it must self-fence and
	// must not acknowledge anything after its shards were reassigned.
	FaultMemberPause FaultKind = "member-pause"
	// FaultCoordinatorKill kills a coordinator process with SIGKILL and
	// starts it again on the same port after For.
	FaultCoordinatorKill FaultKind = "coordinator-kill"
	// FaultRedisStop kills redis-server and starts it again (same port,
	// same append-only file) after For.
	FaultRedisStop FaultKind = "redis-stop"
	// FaultSlowHeartbeats sets a slow proxy's added delay to Delay for For:
	// the members behind it heartbeat slowly.
	FaultSlowHeartbeats FaultKind = "slow-heartbeats"
	// FaultCoordinatorPause freezes a cluster node (SIGSTOP) for For, then
	// continues it (SIGCONT). A node frozen longer than the cluster
	// tolerates (automanaged: 2 s) finds it was evicted and exits by itself;
	// the chaos supervisor then starts it again. Only with several nodes.
	FaultCoordinatorPause FaultKind = "coordinator-pause"
	// FaultCoordinatorRestart stops a cluster node gracefully (SIGTERM: it
	// hands its groups over, leaves the cluster and exits) and starts it
	// again For after it exited. Only with several nodes.
	FaultCoordinatorRestart FaultKind = "coordinator-restart"
	// FaultRedisFailover kills the Redis primary (SIGKILL) of a run on
	// Redis Sentinel; the injection returns once the Sentinels promoted a
	// replica and it takes writes. For after the kill, the old primary is
	// started again (empty: the Sentinels make it a replica of the new
	// primary). Only in Sentinel mode, where it takes redis-stop's place.
	FaultRedisFailover FaultKind = "redis-failover"
)

// AllFaultKinds lists every kind, in report order. The node faults and the
// Redis failover come last: a kind a setup does not have is never drawn,
// and the random draws of a one-coordinator schedule on one Redis stay
// what they were before those kinds existed.
var AllFaultKinds = []FaultKind{FaultMemberKill, FaultMemberPause, FaultCoordinatorKill, FaultRedisStop, FaultSlowHeartbeats,
	FaultCoordinatorPause, FaultCoordinatorRestart, FaultRedisFailover}

// ReportedFaultKinds are the kinds the report counts: every fault kind and
// the reshard operations (GenerateReshards), which Generate never draws.
var ReportedFaultKinds = append(append([]FaultKind(nil), AllFaultKinds...), FaultReshard)

// nodeFault reports whether k takes a coordinator process down (kill,
// pause, graceful restart).
func nodeFault(k FaultKind) bool {
	return k == FaultCoordinatorKill || k == FaultCoordinatorPause || k == FaultCoordinatorRestart
}

// redisFault reports whether k takes the Redis primary down.
func redisFault(k FaultKind) bool { return k == FaultRedisStop || k == FaultRedisFailover }

// infraFault reports whether k takes Redis or a coordinator down.
func infraFault(k FaultKind) bool { return redisFault(k) || nodeFault(k) }

// Fault is one planned fault: at At (from the start of the fault phase) the
// Target is faulted, and For later it is recovered.
type Fault struct {
	At     time.Duration `json:"at"`
	Kind   FaultKind     `json:"kind"`
	Target string        `json:"target"` // member id, "coordinator-N", "redis", "proxy-N"
	For    time.Duration `json:"for"`
	Delay  time.Duration `json:"delay,omitempty"` // slow heartbeats: added delay per request
	// Shards is a reshard operation's target count; Rollback makes it the
	// rollback of the migration in progress (Shards: the count the plan
	// expects back). See FaultReshard.
	Shards   int  `json:"shards,omitempty"`
	Rollback bool `json:"rollback,omitempty"`
}

func (f Fault) String() string {
	if f.Kind == FaultReshard {
		if f.Rollback {
			return fmt.Sprintf("%7.2fs %-16s rollback (back to %d shards)", f.At.Seconds(), f.Kind, f.Shards)
		}
		return fmt.Sprintf("%7.2fs %-16s scale to %d shards", f.At.Seconds(), f.Kind, f.Shards)
	}
	s := fmt.Sprintf("%7.2fs %-16s %-14s for %5.2fs", f.At.Seconds(), f.Kind, f.Target, f.For.Seconds())
	if f.Delay > 0 {
		s += fmt.Sprintf(" delay %s", f.Delay)
	}
	return s
}

// ScheduleConfig is what a schedule is generated from. The same config
// always gives the same schedule.
type ScheduleConfig struct {
	Seed     int64
	Duration time.Duration // length of the fault phase; every fault is recovered by then
	Lease    time.Duration // member lease TTL
	Members  []string      // member ids that may be killed or paused
	// Coordinators is the number of coordinator processes (coordinator-0 …).
	Coordinators int
	// Proxies is the number of slow proxies (proxy-0 …).
	Proxies int
	// MaxMembersDown bounds the members killed or paused at the same time.
	MaxMembersDown int
	// MaxCoordinatorsDown bounds the coordinators down at the same time
	// (with one coordinator: 1, i.e. the control plane may be fully down;
	// with a cluster of N: N-1, one node up). A node counts as down from
	// its fault until one lease after the fault's end, which covers most of
	// an evicted node's exit and restart by the supervisor, not all: a node
	// that detects its own pause takes about 2 s to exit, then about 1 s to
	// start, so the bound holds for the schedule, not at every instant.
	MaxCoordinatorsDown int
	// Sentinel: Redis is a primary with replicas behind Sentinels; its
	// faults are redis-failover instead of redis-stop.
	Sentinel bool
}

// Generate builds the fault schedule for cfg. Faults start after a short
// warm-up, follow each other every 1–3 s, and end (are recovered) by
// cfg.Duration. The first faults cover every kind once (in an order drawn
// from the seed) so that even a short run tries each kind; after that kinds
// are drawn by weight. Redis faults never overlap coordinator faults;
// coordinator faults overlap each other only up to MaxCoordinatorsDown
// nodes; a target gets at least one lease of rest between two faults. The
// node faults pause and graceful restart exist only with several
// coordinators; with one, the schedule is the same as before they existed.
func Generate(cfg ScheduleConfig) []Fault {
	rng := rand.New(rand.NewSource(cfg.Seed))
	L := cfg.Lease
	between := func(lo, hi time.Duration) time.Duration {
		if hi <= lo {
			return lo
		}
		return lo + time.Duration(rng.Int63n(int64(hi-lo)))
	}
	// Every fault holds its target busy until it is recovered plus a rest.
	busy := map[string]time.Duration{}
	type span struct{ from, to time.Duration }
	var memberDown, coordDown []span // coordDown spans run one lease past the fault's end
	// End of the last Redis fault, and of the last coordinator fault, each
	// plus a lease of rest: Redis and coordinator faults do not overlap.
	var redisBusy, coordBusy time.Duration
	countAt := func(spans []span, from, to time.Duration) int {
		n := 0
		for _, s := range spans {
			if s.from < to && from < s.to {
				n++
			}
		}
		return n
	}
	weights := map[FaultKind]int{FaultMemberKill: 30, FaultMemberPause: 20, FaultCoordinatorKill: 15, FaultRedisStop: 10, FaultSlowHeartbeats: 15,
		FaultCoordinatorPause: 10, FaultCoordinatorRestart: 10}
	if cfg.Sentinel {
		weights[FaultRedisStop], weights[FaultRedisFailover] = 0, 25
	}
	if cfg.Coordinators == 0 {
		weights[FaultCoordinatorKill] = 0
	}
	if cfg.Proxies == 0 {
		weights[FaultSlowHeartbeats] = 0
	}
	var coverage []FaultKind
	for _, k := range AllFaultKinds {
		if (k == FaultCoordinatorPause || k == FaultCoordinatorRestart) && cfg.Coordinators < 2 {
			weights[k] = 0 // left out of coverage too: one-node schedules keep their draws
			continue
		}
		if weights[k] == 0 && (k == FaultRedisStop || k == FaultRedisFailover) {
			continue // the other mode's Redis fault
		}
		coverage = append(coverage, k)
	}
	rng.Shuffle(len(coverage), func(i, j int) { coverage[i], coverage[j] = coverage[j], coverage[i] })

	draw := func() FaultKind {
		total := 0
		for _, k := range AllFaultKinds {
			total += weights[k]
		}
		n := rng.Intn(total)
		for _, k := range AllFaultKinds {
			if n < weights[k] {
				return k
			}
			n -= weights[k]
		}
		return FaultMemberKill
	}

	// plan tries to place a fault of kind k at t; ok is false if no target
	// is free or it would not be recovered by the end.
	plan := func(k FaultKind, t time.Duration) (Fault, bool) {
		f := Fault{At: t, Kind: k}
		switch k {
		case FaultMemberKill:
			f.For = between(L*3/10, 2*L)
		case FaultMemberPause:
			f.For = between(L*13/10, L*5/2)
		case FaultCoordinatorKill:
			f.For = between(200*time.Millisecond, L*3/2)
		case FaultRedisStop, FaultRedisFailover:
			f.For = between(2*time.Second, max(2*L, 3*time.Second))
		case FaultSlowHeartbeats:
			f.For = between(2*time.Second, 3*L)
			f.Delay = between(100*time.Millisecond, L*3/4).Round(10 * time.Millisecond)
		case FaultCoordinatorPause:
			// Either side of the automanaged cluster's 2 s tolerance: a short
			// freeze is survived, a long one ends in eviction and a restart.
			f.For = between(500*time.Millisecond, L*9/4)
		case FaultCoordinatorRestart:
			f.For = between(200*time.Millisecond, L) // down between its exit and the new start
		}
		f.For = f.For.Round(10 * time.Millisecond)
		end := t + f.For
		if end > cfg.Duration {
			return f, false
		}
		var candidates []string
		switch k {
		case FaultMemberKill, FaultMemberPause:
			if countAt(memberDown, t, end) >= cfg.MaxMembersDown {
				return f, false
			}
			candidates = cfg.Members
		case FaultCoordinatorKill, FaultCoordinatorPause, FaultCoordinatorRestart:
			if t < redisBusy || countAt(coordDown, t, end+L) >= cfg.MaxCoordinatorsDown {
				return f, false
			}
			for i := 0; i < cfg.Coordinators; i++ {
				candidates = append(candidates, fmt.Sprintf("coordinator-%d", i))
			}
		case FaultRedisStop, FaultRedisFailover:
			if t < redisBusy || t < coordBusy {
				return f, false
			}
			candidates = []string{"redis"}
		case FaultSlowHeartbeats:
			for i := 0; i < cfg.Proxies; i++ {
				candidates = append(candidates, fmt.Sprintf("proxy-%d", i))
			}
		}
		var free []string
		for _, c := range candidates {
			if busy[c] <= t {
				free = append(free, c)
			}
		}
		if len(free) == 0 {
			return f, false
		}
		f.Target = free[rng.Intn(len(free))]
		busy[f.Target] = end + L
		switch k {
		case FaultMemberKill, FaultMemberPause:
			memberDown = append(memberDown, span{t, end})
		case FaultCoordinatorKill, FaultCoordinatorPause, FaultCoordinatorRestart:
			coordDown = append(coordDown, span{t, end + L})
			coordBusy = max(coordBusy, end+L)
		case FaultRedisStop, FaultRedisFailover:
			redisBusy = end + L
		}
		return f, true
	}

	var out []Fault
	t := 2 * time.Second // warm-up: every member owns its shards first
	for t < cfg.Duration {
		var k FaultKind
		if len(coverage) > 0 {
			k = coverage[0]
		} else {
			k = draw()
		}
		f, ok := plan(k, t)
		if !ok && len(coverage) == 0 {
			// Try the other kinds before giving this slot up.
			for _, other := range AllFaultKinds {
				if other != k && weights[other] > 0 {
					if f, ok = plan(other, t); ok {
						break
					}
				}
			}
		}
		if ok {
			out = append(out, f)
			if len(coverage) > 0 {
				coverage = coverage[1:]
			}
		} else if len(coverage) > 0 && weights[k] == 0 {
			coverage = coverage[1:]
		}
		t += between(time.Second, 3*time.Second).Round(10 * time.Millisecond)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

// FormatSchedule renders a schedule one fault a line.
func FormatSchedule(fs []Fault) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}
