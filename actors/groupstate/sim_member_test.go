package groupstate

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// The simulated member: it follows the member protocol faithfully.

type simMember struct {
	id          string
	alive       bool
	leaving     bool
	phantom     bool         // joins once, then silence
	orphan      map[int]bool // read since before a store loss: the restored state may not know it
	epoch       int64
	mv          int64
	reading     map[int]bool
	draining    map[int]time.Time // shard → when the drain completes
	revoked     []int             // drained, reported as REVOKED until acknowledged
	stopped     []int             // leaving: stopped at once, listed in ownedShards of the leave
	lastOK      time.Time
	nextHB      time.Time
	pausedUntil time.Time
	maxEpoch    int64
	instance    string // static membership: its instanceId ("" = dynamic)
	tempLeave   bool   // leaving for a restart: sends memberEpoch -2, a successor takes over
	capacity    int    // its runtimeMaxConcurrency (varied on capacity-weighted schedules)
}

func (m *simMember) dropAll() {
	m.reading, m.draining, m.revoked, m.stopped, m.epoch = map[int]bool{}, map[int]time.Time{}, nil, nil, 0
	m.orphan = map[int]bool{}
}

func (m *simMember) holdsAnything() bool { return len(m.reading)+len(m.draining) > 0 }

func (s *sim) drainDelay() time.Duration {
	if s.faults && s.rng.Intn(10) == 0 {
		return simRebal + time.Duration(s.rng.Intn(20))*time.Second // too slow: gets fenced
	}
	return time.Duration(s.rng.Intn(4000)) * time.Millisecond
}

func (s *sim) request(m *simMember) model.Heartbeat {
	s.req++
	hb := model.Heartbeat{ProtocolVersion: 1, RequestID: fmt.Sprint(s.req), PathMemberID: m.id, MemberID: m.id,
		MemberEpoch: m.epoch, MetadataVersion: m.mv, Capacity: model.Capacity{MaxConcurrency: m.capacity, Available: max(m.capacity, 0)}, InstanceID: m.instance}
	if m.leaving {
		hb.MemberEpoch = -1
		if m.tempLeave {
			hb.MemberEpoch = -2
		}
	}
	if hb.MemberEpoch == 0 {
		return hb
	}
	for sh := range m.reading {
		hb.Owned = append(hb.Owned, sh)
	}
	if m.leaving {
		// A leaving member reads nothing; ownedShards lists what it stopped (SPEC §4: a
		// leave frees every shard not reported DRAINING).
		hb.Owned = append(hb.Owned, m.stopped...)
	}
	sort.Ints(hb.Owned)
	var dr []int
	for sh := range m.draining {
		dr = append(dr, sh)
	}
	sort.Ints(dr)
	for _, sh := range dr {
		hb.Revoking = append(hb.Revoking, model.RevokingShard{Shard: sh, State: model.RevokeDraining, InFlight: 1})
	}
	for _, sh := range m.revoked {
		hb.Revoking = append(hb.Revoking, model.RevokingShard{Shard: sh, State: model.RevokeRevoked})
	}
	return hb
}

// heartbeat sends one heartbeat of m with the given delivery fault.
func (s *sim) heartbeat(m *simMember, fault string) {
	m.nextHB = s.now.Add(simInterval)
	if s.moving() {
		// Nobody answers for the group: RETRY; the member keeps what it has and tries again
		// within an interval (its self-fence deadline keeps running).
		m.nextHB = s.now.Add(time.Duration(500+s.rng.Intn(2500)) * time.Millisecond)
		s.log("%s hb -> RETRY (activation moving)", m.id)
		simStats["retry-moving"]++
		return
	}
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

func (s *sim) deliver(hb model.Heartbeat) model.Response {
	d := s.g.Heartbeat(hb, s.now)
	checkSteadyAgrees(s.t, s.g, hb, s.now, d)
	if d.Change == nil && d.Response.Status == model.StatusOK && hb.MemberEpoch > 0 {
		s.fail("accepted heartbeat without a change")
	}
	s.apply(d.Change)
	return d.Response
}

func (s *sim) handle(m *simMember, hb model.Heartbeat, r model.Response) {
	switch r.Status {
	case model.StatusOK, model.StatusSyncMetadata:
		m.lastOK = s.now
		m.mv = r.MetadataVersion
		if hb.MemberEpoch == 0 && strings.Contains(r.Message, "takes over the assignment") {
			simStats["hand-back"]++
		}
		m.revoked = nil
		if hb.MemberEpoch < 0 {
			m.stopped = nil
			if !m.holdsAnything() {
				m.alive = false // left for good
				s.log("%s left (epoch %d)", m.id, hb.MemberEpoch)
				simStats["left"]++
				if m.tempLeave {
					s.restartInstance(m)
				}
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
			} else if r.Status == model.StatusOK && !m.reading[sh] {
				m.reading[sh] = true
			}
		}
	case model.StatusRetry:
		if r.Limit == "" || hb.MemberEpoch != 0 {
			s.fail("%s: RETRY for a heartbeat at epoch %d without a limit: %s", m.id, hb.MemberEpoch, r.Message)
		}
		simStats["refused-"+r.Limit]++ // a refused join: it holds nothing, retries at its next heartbeat
	case model.StatusUnreleasedInstanceID:
		if hb.MemberEpoch != 0 {
			s.fail("%s: UNRELEASED_INSTANCE_ID for a heartbeat at epoch %d", m.id, hb.MemberEpoch)
		}
		simStats["unreleased-instance"]++ // holds nothing, retries joining at its next heartbeat
	case model.StatusFencedMemberEpoch, model.StatusUnknownMemberID:
		m.dropAll()
		if m.leaving {
			m.nextHB = s.now
		}
	default:
		s.fail("%s: unexpected status %s: %s", m.id, r.Status, r.Message)
	}
}
