package groupstate

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
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

type simMember struct {
	id          string
	alive       bool
	leaving     bool
	epoch       int64
	mv          int64
	reading     map[int]bool
	draining    map[int]time.Time // shard → when the drain completes
	revoked     []int             // drained, reported as REVOKED until acknowledged
	lastOK      time.Time
	nextHB      time.Time
	pausedUntil time.Time
	maxEpoch    int64
}

type sim struct {
	t        testing.TB
	seed     int64
	rng      *rand.Rand
	g        *Group
	now      time.Time
	shards   int
	members  []*simMember
	faults   bool
	lastMeta Meta
	epochOf  map[string]int64 // highest coordinator epoch seen per member id
	target   map[string][]int // target at the last assignment epoch
	trace    []string
	req      int
}

func (s *sim) fail(format string, args ...any) {
	s.t.Helper()
	tail := s.trace
	if len(tail) > 25 {
		tail = tail[len(tail)-25:]
	}
	s.t.Fatalf("seed %d at +%s: %s\nlast steps:\n  %s\n%s", s.seed, s.now.Sub(t0),
		fmt.Sprintf(format, args...), strings.Join(tail, "\n  "), table(s.g))
}

// simStats counts what the schedules exercised (printed by TestSimulation with -v).
var simStats = map[string]int{}

func (s *sim) log(format string, args ...any) {
	s.trace = append(s.trace, fmt.Sprintf("+%s ", s.now.Sub(t0))+fmt.Sprintf(format, args...))
}

func newSim(t testing.TB, seed int64) *sim {
	rng := rand.New(rand.NewSource(seed))
	shards := 1 + rng.Intn(12)
	s := &sim{t: t, seed: seed, rng: rng, shards: shards, now: t0, faults: true,
		epochOf: map[string]int64{}, target: map[string][]int{},
		g: New(Config{HeartbeatInterval: simInterval, LeaseTTL: simTTL, RebalanceTimeout: simRebal, Retention: time.Minute},
			"s", "g", shards, 0)}
	for i := 0; i < 1+rng.Intn(3); i++ {
		s.spawn()
	}
	return s
}

func (s *sim) spawn() *simMember {
	m := &simMember{id: fmt.Sprintf("m%d", len(s.members)), alive: true, nextHB: s.now,
		reading: map[int]bool{}, draining: map[int]time.Time{}}
	s.members = append(s.members, m)
	return m
}

func (m *simMember) dropAll() {
	m.reading, m.draining, m.revoked, m.epoch = map[int]bool{}, map[int]time.Time{}, nil, 0
}

func (m *simMember) holdsAnything() bool { return len(m.reading)+len(m.draining) > 0 }

func (s *sim) drainDelay() time.Duration {
	if s.faults && s.rng.Intn(10) == 0 {
		return simRebal + time.Duration(s.rng.Intn(20))*time.Second // too slow: gets fenced
	}
	return time.Duration(s.rng.Intn(4000)) * time.Millisecond
}

func (s *sim) request(m *simMember) Heartbeat {
	s.req++
	hb := Heartbeat{ProtocolVersion: 1, RequestID: fmt.Sprint(s.req), PathMemberID: m.id, MemberID: m.id,
		MemberEpoch: m.epoch, MetadataVersion: m.mv, Capacity: Capacity{4, 4}}
	if m.leaving {
		hb.MemberEpoch = -1
	}
	if hb.MemberEpoch == 0 {
		return hb
	}
	for sh := range m.reading {
		hb.Owned = append(hb.Owned, sh)
	}
	sort.Ints(hb.Owned)
	var dr []int
	for sh := range m.draining {
		dr = append(dr, sh)
	}
	sort.Ints(dr)
	for _, sh := range dr {
		hb.Revoking = append(hb.Revoking, RevokingShard{Shard: sh, State: RevokeDraining, InFlight: 1})
	}
	for _, sh := range m.revoked {
		hb.Revoking = append(hb.Revoking, RevokingShard{Shard: sh, State: RevokeRevoked})
	}
	return hb
}

// heartbeat sends one heartbeat of m with the given delivery fault.
func (s *sim) heartbeat(m *simMember, fault string) {
	m.nextHB = s.now.Add(simInterval)
	hb := s.request(m)
	if fault == "lost-request" {
		s.log("%s hb epoch=%d LOST REQUEST", m.id, hb.MemberEpoch)
		return
	}
	resp := s.deliver(hb)
	if fault == "duplicate" {
		resp = s.deliver(hb)
	}
	simStats[string(resp.Status)]++
	if fault != "" {
		simStats[fault]++
	}
	s.log("%s hb epoch=%d owned=%v rev=%v -> %s epoch=%d a=%v p=%v %s", m.id, hb.MemberEpoch, hb.Owned, hb.Revoking,
		resp.Status, resp.MemberEpoch, resp.Assigned, resp.Pending, fault)
	if fault == "lost-response" {
		return
	}
	s.handle(m, hb, resp)
}

func (s *sim) deliver(hb Heartbeat) Response {
	d := s.g.Heartbeat(hb, s.now)
	if d.Change == nil && d.Response.Status == StatusOK && hb.MemberEpoch > 0 {
		s.fail("accepted heartbeat without a change")
	}
	s.apply(d.Change)
	return d.Response
}

func (s *sim) handle(m *simMember, hb Heartbeat, r Response) {
	switch r.Status {
	case StatusOK, StatusSyncMetadata, StatusRevokePending:
		m.lastOK = s.now
		m.mv = r.MetadataVersion
		m.revoked = nil
		if hb.MemberEpoch == -1 {
			if !m.holdsAnything() {
				m.alive = false // left for good
				s.log("%s left", m.id)
				simStats["left"]++
			}
			return
		}
		if r.MemberEpoch < m.maxEpoch {
			s.fail("%s: member epoch went back from %d to %d", m.id, m.maxEpoch, r.MemberEpoch)
		}
		m.maxEpoch = r.MemberEpoch
		m.epoch = r.MemberEpoch
		for sh := range m.reading {
			if !slices.Contains(r.Assigned, sh) {
				delete(m.reading, sh)
				m.draining[sh] = s.now.Add(s.drainDelay())
			}
		}
		for _, sh := range r.Assigned {
			if _, ok := m.draining[sh]; ok {
				delete(m.draining, sh)
				m.reading[sh] = true
			} else if r.Status == StatusOK && !m.reading[sh] {
				m.reading[sh] = true
			}
		}
	case StatusFencedMemberEpoch, StatusUnknownMemberID:
		m.dropAll()
		if m.leaving {
			m.nextHB = s.now
		}
	default:
		s.fail("%s: unexpected status %s: %s", m.id, r.Status, r.Message)
	}
}

func (s *sim) apply(c *Change) {
	s.g.Apply(c)
	s.check()
}

// check runs every per-step property.
func (s *sim) check() {
	s.t.Helper()
	if v := s.g.CheckInvariants(); len(v) > 0 {
		s.fail("invariants: %s", strings.Join(v, "; "))
	}
	// Real-world single owner: no shard read (or drained) by two live processes, and whoever
	// reads a shard is its holder for the coordinator.
	readers := map[int]string{}
	for _, m := range s.members {
		if !m.alive {
			continue
		}
		for sh := range m.reading {
			s.reader(readers, sh, m.id)
		}
		for sh := range m.draining {
			s.reader(readers, sh, m.id)
		}
	}
	// No epoch regression: group level and per member record.
	mt := s.g.Meta()
	if mt.GroupEpoch < s.lastMeta.GroupEpoch || mt.AssignmentEpoch < s.lastMeta.AssignmentEpoch || mt.MetadataVersion < s.lastMeta.MetadataVersion {
		s.fail("group epochs regressed: %+v -> %+v", s.lastMeta, mt)
	}
	for _, m := range s.g.Members() {
		if m.Epoch < s.epochOf[m.ID] {
			s.fail("member %s record epoch regressed %d -> %d", m.ID, s.epochOf[m.ID], m.Epoch)
		}
		s.epochOf[m.ID] = m.Epoch
	}
	if mt.AssignmentEpoch != s.lastMeta.AssignmentEpoch {
		s.checkSticky(s.target, s.g.Target())
		s.target = s.g.Target()
	}
	s.lastMeta = mt
}

func (s *sim) reader(readers map[int]string, sh int, id string) {
	if o, dup := readers[sh]; dup {
		s.fail("shard %d read by both %s and %s", sh, o, id)
	}
	readers[sh] = id
	if h, _ := s.g.Holder(sh); h != id {
		s.fail("shard %d read by %s but the coordinator's holder is %q", sh, id, h)
	}
}

// checkSticky: a single join moves at most what balance needs (old members only lose, and the
// total taken is minimal for balanced quotas); departures move only the departed's shards.
func (s *sim) checkSticky(old, cur map[string][]int) {
	var added, removed []string
	for id := range cur {
		if _, ok := old[id]; !ok {
			added = append(added, id)
		}
	}
	for id := range old {
		if _, ok := cur[id]; !ok {
			removed = append(removed, id)
		}
	}
	if len(old) == 0 || len(cur) == 0 {
		return
	}
	switch {
	case len(added) == 0:
		for id, sh := range cur {
			if len(diff(old[id], sh)) > 0 {
				s.fail("departure of %v moved shards %v away from %s", removed, diff(old[id], sh), id)
			}
		}
	case len(added) == 1 && len(removed) == 0:
		n := len(cur)
		base, extra := s.shards/n, s.shards%n
		var counts []int
		moved := 0
		for id, sh := range old {
			if len(diff(cur[id], sh)) > 0 {
				s.fail("join of %v gave old member %s new shards %v", added, id, diff(cur[id], sh))
			}
			moved += len(sh) - len(cur[id])
			counts = append(counts, len(sh))
		}
		sort.Sort(sort.Reverse(sort.IntSlice(counts)))
		need := 0
		for i, c := range counts {
			q := base
			if i < extra {
				q++
			}
			need += max(0, c-q)
		}
		if moved > need {
			s.fail("join of %v moved %d shards, balance needs %d", added, moved, need)
		}
	}
}

// advance moves the clock; members self-fence first, then the coordinator's timers fire.
func (s *sim) advance(d time.Duration) {
	s.now = s.now.Add(d)
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
				}
			}
			s.apply(c)
		}
	}
	if c := s.g.Tick(s.now); c != nil {
		s.fail("Tick found due timers the per-member timers missed: %s", fmtChange(c))
	}
	if s.rng.Intn(20) == 0 {
		s.apply(s.g.Prune(s.now))
	}
}

// step runs due heartbeats and, while faults are on, one random fault.
func (s *sim) step() {
	if s.faults {
		s.fault()
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
	case r < 5:
		if m := pick(); m != nil {
			s.log("%s crashed", m.id)
			m.alive = false
		}
	case r < 7:
		for _, m := range s.members {
			if !m.alive && !m.leaving {
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
	case r < 10:
		if m := pick(); m != nil && !m.leaving {
			s.log("%s leaving", m.id)
			m.leaving = true
			for sh := range m.reading {
				delete(m.reading, sh)
				m.draining[sh] = s.now.Add(s.drainDelay())
			}
			m.nextHB = s.now
		}
	case r < 11:
		d := time.Duration(5+s.rng.Intn(40)) * time.Second
		s.log("clock jumps %s", d)
		s.advance(d)
	}
}

// runSim runs one schedule: faults for `steps` steps, then a quiet phase in which every shard
// must end up assigned to and read by exactly one live member within a bounded time.
func runSim(t testing.TB, seed int64, steps int) {
	s := newSim(t, seed)
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
	deadline := s.now.Add(simTTL + simRebal + 10*simInterval)
	for s.now.Before(deadline) {
		s.step()
		if s.settled() {
			return
		}
	}
	s.fail("not settled %s after faults stopped", simTTL+simRebal+10*simInterval)
}

// settled: every shard is in exactly one live member's Assigned and that process reads it.
func (s *sim) settled() bool {
	if s.g.Live() == 0 {
		return false
	}
	owner := map[int]string{}
	for _, m := range s.g.Members() {
		if !inTarget(m.State) || len(m.Revoking) > 0 || len(m.Pending) > 0 {
			if inTarget(m.State) {
				return false
			}
			continue
		}
		for _, sh := range m.Assigned {
			owner[sh] = m.ID
		}
	}
	if len(owner) != s.shards {
		return false
	}
	for sh, id := range owner {
		for _, m := range s.members {
			if m.id == id && (!m.alive || !m.reading[sh]) {
				return false
			}
		}
	}
	return true
}

func TestSimulation(t *testing.T) {
	seeds, steps := 1000, 200
	if testing.Short() {
		seeds = 200
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		runSim(t, seed, steps)
	}
	t.Logf("%d schedules of %d fault steps; exercised: %v", seeds, steps, simStats)
}
