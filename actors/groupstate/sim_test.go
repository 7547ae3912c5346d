package groupstate

import (
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// The randomized simulation: simulated members follow the member protocol faithfully (apply
// the assignment, revoke after a random delay, self-fence after TTL − margin without a
// successful heartbeat) while faults happen: joins, leaves, crashes, restarts, pauses past
// the lease, lost requests and responses, slow revocations (sometimes beyond the rebalance
// timeout), duplicate deliveries and clock jumps. Every step checks the real-world single
// owner, the coordinator's invariants, epoch monotonicity and stickiness; after faults stop,
// liveness is checked within a bounded number of heartbeat rounds.

const (
	simTTL      = 15 * time.Second
	simRebal    = 20 * time.Second
	simInterval = 3 * time.Second
	simMargin   = 3 * time.Second
)

type sim struct {
	t        testing.TB
	seed     int64
	opts     simOpts
	rng      *rand.Rand
	g        *Group
	now      time.Time
	shards   int
	members  []*simMember
	faults   bool
	lastMeta model.Meta
	epochOf  map[string]int64 // highest coordinator epoch seen per member id
	target   map[string][]int // target at the last assignment epoch
	trace    []string
	capRng   *rand.Rand // capacity-weighted schedules (sim_capacity_test.go); nil: uniform only
	store    *simStore
	req      int

	// Activation moves (sim_move_test.go).
	moveStart, moveUntil time.Time        // zero moveStart: not moving
	handed               map[string]Lease // timers handed over by a graceful release
	tracks               map[string]*leaseTrack
}

func (s *sim) fail(format string, args ...any) {
	s.t.Helper()
	tail := s.trace
	if len(tail) > 25 {
		tail = tail[len(tail)-25:]
	}
	s.t.Fatalf("seed %d%s at +%s: %s\nlast steps:\n  %s\n%s", s.seed, s.opts, s.now.Sub(t0),
		fmt.Sprintf(format, args...), strings.Join(tail, "\n  "), table(s.g))
}

// simStats counts what the schedules exercised (printed by TestSimulation with -v).
var simStats = map[string]int{}

func (s *sim) log(format string, args ...any) {
	s.trace = append(s.trace, fmt.Sprintf("+%s ", s.now.Sub(t0))+fmt.Sprintf(format, args...))
}

func newSim(t testing.TB, seed int64, o simOpts) *sim {
	rng := rand.New(rand.NewSource(seed))
	shards := 1 + rng.Intn(12)
	s := &sim{t: t, seed: seed, opts: o, rng: rng, shards: shards, now: t0, faults: true,
		epochOf: map[string]int64{}, target: map[string][]int{},
		g: New(o.config(rng), "s", "g", shards, 0)}
	if capRng := rand.New(rand.NewSource(^seed)); capRng.Intn(3) == 0 {
		// A move cap (movecap.go) on a third of the schedules, drawn from its own source so
		// that every schedule's faults stay those of the seed without a cap.
		cfg := s.g.Config()
		cfg.MaxMovesPerRound = 1 + capRng.Intn(3)
		s.g = New(cfg, "s", "g", shards, 0)
	}
	s.store = newSimStore(s.g)
	s.capacityInit(seed)
	for i := 0; i < 1+rng.Intn(3); i++ {
		s.spawn()
	}
	return s
}

// simConfig: the timings, and on some schedules the limits (refused joins are retried).
func simConfig(rng *rand.Rand) model.Config {
	cfg := model.Config{HeartbeatInterval: simInterval, LeaseTTL: simTTL, RebalanceTimeout: simRebal, Retention: time.Minute}
	if rng.Intn(3) == 0 {
		cfg.MaxMembers, cfg.MaxRetained = 2+rng.Intn(4), 1+rng.Intn(3)
		cfg.JoinRate, cfg.JoinBurst = 0.2+rng.Float64(), rng.Intn(3)
	}
	if rng.Intn(4) != 0 {
		cfg.StaticSessionTimeout = time.Duration(5+rng.Intn(40)) * time.Second
	}
	return cfg
}

func (s *sim) spawn() *simMember {
	m := &simMember{id: fmt.Sprintf("m%d", len(s.members)), alive: true, nextHB: s.now,
		reading: map[int]bool{}, draining: map[int]time.Time{}, orphan: map[int]bool{}, capacity: s.drawCapacity()}
	if s.rng.Intn(2) == 0 || s.opts.static {
		m.instance = fmt.Sprintf("pod-%d", len(s.members))
	}
	s.members = append(s.members, m)
	return m
}

// restartInstance starts the next incarnation of static member old (after its temporary
// leave): a new member id with the same instanceId, within a few seconds.
func (s *sim) restartInstance(old *simMember) {
	m := s.spawn()
	m.instance = old.instance
	m.nextHB = s.now.Add(time.Duration(s.rng.Intn(8000)) * time.Millisecond)
	s.log("%s restarts instance %s (after %s)", m.id, m.instance, old.id)
	simStats["static-restart"]++
}

// advance moves the clock; members self-fence first, then the coordinator's timers fire
// (none while the activation moves).
func (s *sim) advance(d time.Duration) {
	s.now = s.now.Add(d)
	s.finishMove()
	for _, m := range s.members {
		if !m.alive {
			continue
		}
		for sh, at := range m.draining {
			if !s.now.Before(at) {
				delete(m.draining, sh)
				if s.rng.Intn(2) == 0 {
					m.revoked = append(m.revoked, sh)
				}
				m.nextHB = s.now // report at once
			}
		}
		if m.holdsAnything() && s.now.Sub(m.lastOK) >= simTTL-simMargin {
			// Self-fencing stops all reading; half the time the member also forgets its epoch
			// (rejoins), otherwise it keeps heartbeating at its epoch owning nothing.
			keep := m.epoch
			m.dropAll()
			if s.rng.Intn(2) == 0 {
				m.epoch = keep
			}
			s.log("%s self-fences (epoch %d)", m.id, m.epoch)
			simStats["self-fence"]++
		}
	}
	s.check()
	if s.moving() {
		return
	}
	// The shell re-arms a member's timer after every Apply: a change may leave a deadline
	// already due (a fenced away member's lease ends a TTL after its temporary leave).
	for pass, fired := 0, true; fired && pass < 3; pass++ {
		fired = s.fireTimers()
	}
	if c := s.g.Tick(s.now); c != nil {
		s.fail("Tick found due timers the per-member timers missed: %s", fmtChange(c))
	}
	s.checkLeaseBounds()
	if s.rng.Intn(20) == 0 {
		s.apply(s.g.Prune(s.now))
	}
}

// step runs due heartbeats and, while faults are on, one random fault.
func (s *sim) step() {
	if s.faults {
		s.fault()
		s.capacityFault()
	}
	s.advance(time.Duration(200+s.rng.Intn(1800)) * time.Millisecond)
	for _, m := range s.members {
		if !m.alive || s.now.Before(m.pausedUntil) || s.now.Before(m.nextHB) {
			continue
		}
		fault := ""
		if s.faults {
			switch r := s.rng.Intn(100); {
			case r < 4:
				fault = "lost-request"
			case r < 9:
				fault = "lost-response"
			case r < 13:
				fault = "duplicate"
			}
		}
		s.heartbeat(m, fault)
		if m.phantom {
			m.dropAll() // silent from now on (it never reads what it may have been given)
			m.alive = false
		}
	}
}

func (s *sim) fault() {
	var alive []*simMember
	for _, m := range s.members {
		if m.alive {
			alive = append(alive, m)
		}
	}
	pick := func() *simMember {
		if len(alive) == 0 {
			return nil
		}
		return alive[s.rng.Intn(len(alive))]
	}
	switch r := s.rng.Intn(100); {
	case r < 3 && len(s.members) < 8:
		s.log("%s spawned", s.spawn().id)
	case r >= 95 && len(s.members) < 24:
		// Phantom join: a member joins, then is never heard from again. It must cost the
		// confirmed members nothing (apply checks no revocation is made for it).
		m := s.spawn()
		m.phantom = true
		s.log("%s phantom joins", m.id)
		simStats["phantom"]++
	case r < 5:
		if m := pick(); m != nil {
			s.log("%s crashed", m.id)
			m.alive = false
		}
	case r < 7:
		for _, m := range s.members {
			if !m.alive && !m.leaving && !m.phantom {
				s.log("%s restarted", m.id)
				m.alive, m.lastOK, m.nextHB = true, time.Time{}, s.now
				m.dropAll()
				break
			}
		}
	case r < 9:
		if m := pick(); m != nil {
			d := time.Duration(s.rng.Intn(25)) * time.Second
			s.log("%s paused for %s", m.id, d)
			m.pausedUntil = s.now.Add(d)
		}
	case r < 10 || (r >= 20 && r < 24):
		if m := pick(); m != nil && !m.leaving && (r < 10 || m.instance != "") {
			m.leaving = true
			m.tempLeave = r >= 20
			s.log("%s leaving (temporary %v)", m.id, m.tempLeave)
			// Like the reference Kotlin client: stop the workers (some shards stop at once and
			// are listed in ownedShards of the leave, which frees them), the rest drain.
			for sh := range m.reading {
				delete(m.reading, sh)
				if s.rng.Intn(2) == 0 {
					m.stopped = append(m.stopped, sh)
				} else {
					m.draining[sh] = s.now.Add(s.drainDelay())
				}
			}
			m.nextHB = s.now
		}
	case r < 11:
		d := time.Duration(5+s.rng.Intn(40)) * time.Second
		s.log("clock jumps %s", d)
		s.advance(d)
	case r < 13:
		if !s.moving() {
			s.failover()
		}
	case r < 15:
		if !s.moving() {
			s.storeLoss()
		}
	case r < 16:
		if m := pick(); m != nil {
			// Version inflation: a buggy or hostile member reports a version the coordinator
			// never issued. check() asserts the group never adopts it.
			m.mv = 1 + s.rng.Int63n(1e15)
			s.log("%s reports metadataVersion %d", m.id, m.mv)
			simStats["version-inflation"]++
		}
	case r < 20:
		if !s.moving() {
			s.startMove(r < 19) // graceful three times out of four
		}
	case r >= 25 && r < 27:
		togglePause(s)
	case r < 25:
		// A second live claim: a process started with the instanceId of a running member.
		// It is refused until that member is gone; it never reads meanwhile.
		if m := pick(); m != nil && m.instance != "" && len(s.members) < 24 {
			d := s.spawn()
			d.instance = m.instance
			s.log("%s claims instance %s of %s", d.id, d.instance, m.id)
			simStats["second-claim"]++
		}
	}
}

// runSim runs one schedule: faults for `steps` steps, then a quiet phase in which every shard
// must end up assigned to and read by exactly one live member within a bounded time.
func runSim(t testing.TB, seed int64, steps int, o simOpts) {
	s := newSim(t, seed, o)
	for i := 0; i < steps; i++ {
		s.step()
	}
	// Faults stop. Ensure at least one live member.
	s.faults = false
	any := false
	for _, m := range s.members {
		m.pausedUntil = time.Time{}
		any = any || (m.alive && !m.leaving)
	}
	if !any {
		m := s.spawn()
		s.log("%s spawned for liveness", m.id)
	}
	s.log("faults stop")
	// Liveness: a static member's hold may last its session timeout on top.
	bound := simTTL + simRebal + 10*simInterval + s.g.Config().StaticSessionTimeout
	if limit := moveLimit(s.g.Config(), s.shards); limit > 0 {
		// Under a move cap the moves run in batches of at most limit shards, each batch a
		// revocation, a drain (< 4s once faults stop) and a grant.
		bound += time.Duration((s.shards+limit-1)/limit) * (2*simInterval + 4*time.Second)
	}
	liveWhilePaused(s, bound)
	deadline := s.now.Add(bound)
	for s.now.Before(deadline) {
		s.step()
		if s.settled() {
			return
		}
	}
	s.fail("not settled %s after faults stopped", bound)
}

var simSeed = flag.Int64("sim.seed", 0, "run only this simulation seed (as printed by a failure)")

func TestSimulation(t *testing.T) {
	// Beside the other heavy tests (2 cores in make test's non-race pass). Not beside
	// TestSimulationStatic, which also counts into simStats: that one is not parallel, so it
	// has ended before any parallel test resumes.
	t.Parallel()
	steps := 200
	if *simSeed != 0 {
		runSim(t, *simSeed, steps, simOpts{shift: *simShift, static: *simStatic})
		return
	}
	seeds := simSeeds(t, 1000, 200)
	for seed := int64(1); seed <= int64(seeds); seed++ {
		runSim(t, seed, steps, simOpts{})
	}
	t.Logf("%d schedules of %d fault steps; exercised: %v", seeds, steps, simStats)
}

// fireTimers fires every member timer due at s.now once; it reports whether any fired.
func (s *sim) fireTimers() bool {
	fired := false
	for _, m := range s.g.Members() {
		if d, ok := s.g.NextDeadline(m.ID); ok && !s.now.Before(d) {
			c := s.g.Expire(m.ID, s.now)
			if c == nil {
				s.fail("NextDeadline %s passed for %s but Expire did nothing", d.Sub(t0), m.ID)
			}
			s.log("expire %s: %s", m.ID, fmtChange(c))
			for _, x := range c.Members {
				if x.ID == m.ID {
					simStats["timer-"+string(x.State)]++
					if x.State == model.StateExpired {
						s.checkExpiryNotEarly(m)
					}
				}
			}
			s.apply(c)
			fired = true
		}
	}
	return fired
}
