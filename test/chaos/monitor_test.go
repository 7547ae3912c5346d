package chaos

import (
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// monitor polls the coordinators' monitoring routes and keeps what the
// chaos report needs: how long shards went without an owner, whether epochs
// and the metadata version ever went backwards, and every invariant
// violation the coordinator reported.
type monitor struct {
	prefix, group string
	shards        int
	clients       []*harness.Client // one per coordinator; the first that answers wins
	prefer        int               // the client that answered last is asked first (only poll's goroutine)

	mu           sync.Mutex
	polls        int
	failures     int
	blind        time.Duration // time without a successful poll
	lastOK       time.Time
	unownedSince map[int]time.Time
	longest      gap
	gaps         []gap // every closed gap, for the report's classification
	overLease    int
	lease        time.Duration
	maxGroup     int64
	maxAssign    int64
	maxMeta      int64
	regressions  []string
	violations   map[string]time.Time
	violOrder    []string
	allOwnedAt   time.Time // last transition to "every shard owned, nothing revoking"
	allOwned     bool
}

type gap struct {
	Shard int
	From  time.Time
	Len   time.Duration
}

func newMonitor(urls []string, prefix, group string, shards int, lease time.Duration) *monitor {
	m := &monitor{prefix: prefix, group: group, shards: shards, lease: lease,
		unownedSince: map[int]time.Time{}, violations: map[string]time.Time{}, longest: gap{Shard: -1}}
	for _, u := range urls {
		c := harness.NewClient(u)
		c.HTTP = &http.Client{Timeout: time.Second}
		m.clients = append(m.clients, c)
	}
	return m
}

// run polls every interval until stop is closed.
func (m *monitor) run(interval time.Duration, stop <-chan struct{}) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		m.poll()
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

func (m *monitor) base() string {
	return "/coord/v1/monitoring/streams/" + m.prefix + "/groups/" + m.group
}

// fetch reads the group and its assignments from the first coordinator
// that answers both, starting with the one that answered last (a paused
// node would cost its full timeout on every poll).
func (m *monitor) fetch() (protocol.GroupResponse, protocol.AssignmentsResponse, bool) {
	for k := range m.clients {
		i := (m.prefer + k) % len(m.clients)
		c := m.clients[i]
		var g protocol.GroupResponse
		var a protocol.AssignmentsResponse
		st, _, err := c.Do("GET", m.base(), nil, &g)
		if err != nil || st != 200 {
			continue
		}
		st, _, err = c.Do("GET", m.base()+"/assignments", nil, &a)
		if err != nil || st != 200 {
			continue
		}
		m.prefer = i
		return g, a, true
	}
	return protocol.GroupResponse{}, protocol.AssignmentsResponse{}, false
}

func (m *monitor) poll() {
	g, a, ok := m.fetch()
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.polls++
	if !ok {
		m.failures++
		return
	}
	if !m.lastOK.IsZero() {
		if d := now.Sub(m.lastOK); d > time.Second {
			m.blind += d
		}
	}
	m.lastOK = now

	// Epochs and the metadata version never go backwards.
	check := func(name string, v int64, max *int64) {
		if v < *max {
			m.regressions = append(m.regressions, fmt.Sprintf("%s %s went from %d to %d", now.UTC().Format("15:04:05.000"), name, *max, v))
		}
		if v > *max {
			*max = v
		}
	}
	check("groupEpoch", g.GroupEpoch, &m.maxGroup)
	check("assignmentEpoch", g.AssignmentEpoch, &m.maxAssign)
	check("metadataVersion", g.MetadataVersion, &m.maxMeta)

	for _, v := range a.InvariantViolations {
		if _, seen := m.violations[v]; !seen {
			m.violations[v] = now
			m.violOrder = append(m.violOrder, now.UTC().Format("15:04:05.000")+" "+v)
		}
	}

	// A shard is unowned when it is in no member's current assignment.
	owned := map[int]bool{}
	for _, ids := range a.CurrentAssignments {
		for _, s := range ids {
			owned[s.ShardIndex] = true
		}
	}
	n := g.ShardCount
	if n == 0 {
		n = m.shards
	}
	for s := 0; s < n; s++ {
		since, was := m.unownedSince[s]
		switch {
		case owned[s] && was:
			m.closeGap(s, since, now)
		case !owned[s] && !was:
			m.unownedSince[s] = now
		}
	}
	// A shard that left the group's shard set (a scale-in retired it) is
	// no longer unowned: its gap ends when it left.
	for s, since := range m.unownedSince {
		if s >= n {
			m.closeGap(s, since, now)
		}
	}
	all := len(owned) >= n && len(a.RevokeProgress) == 0
	if all && !m.allOwned {
		m.allOwnedAt = now
	}
	m.allOwned = all
}

func (m *monitor) closeGap(s int, since, now time.Time) {
	d := now.Sub(since)
	m.gaps = append(m.gaps, gap{Shard: s, From: since, Len: d})
	if d > m.longest.Len {
		m.longest = gap{Shard: s, From: since, Len: d}
	}
	if d > m.lease {
		m.overLease++
	}
	delete(m.unownedSince, s)
}

// settled reports whether every shard has been owned, with nothing
// revoking, for at least d.
func (m *monitor) settled(d time.Duration) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.allOwned && time.Since(m.allOwnedAt) >= d && time.Since(m.lastOK) < time.Second
}

// finish closes the gaps still open (they count up to now).
func (m *monitor) finish() {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	for s, since := range m.unownedSince {
		m.closeGap(s, since, now)
	}
}

// monitorFigures is the monitor's part of the report.
type monitorFigures struct {
	Polls               int      `json:"polls"`
	PollFailures        int      `json:"pollFailures"`
	BlindSeconds        float64  `json:"blindSeconds"` // time the monitoring routes did not answer (coordinator or Redis down)
	LongestUnownedMs    int64    `json:"longestUnownedGapMs"`
	LongestUnownedShard int      `json:"longestUnownedShard"`
	LongestUnownedFrom  string   `json:"longestUnownedFrom,omitempty"`
	LeaseTTLMs          int64    `json:"leaseTtlMs"`
	LongestGapOverLease float64  `json:"longestUnownedGapOverLease"`
	GapsLongerThanLease int      `json:"gapsLongerThanLease"`
	MaxGroupEpoch       int64    `json:"maxGroupEpoch"`
	MaxAssignmentEpoch  int64    `json:"maxAssignmentEpoch"`
	MaxMetadataVersion  int64    `json:"maxMetadataVersion"`
	EpochRegressions    []string `json:"epochRegressions"`
	InvariantViolations []string `json:"invariantViolations"`
}

func (m *monitor) figures() monitorFigures {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := monitorFigures{
		Polls: m.polls, PollFailures: m.failures, BlindSeconds: round2(m.blind.Seconds()),
		LongestUnownedMs: m.longest.Len.Milliseconds(), LongestUnownedShard: m.longest.Shard,
		LeaseTTLMs: m.lease.Milliseconds(), GapsLongerThanLease: m.overLease,
		MaxGroupEpoch: m.maxGroup, MaxAssignmentEpoch: m.maxAssign, MaxMetadataVersion: m.maxMeta,
		EpochRegressions:    append([]string{}, m.regressions...),
		InvariantViolations: append([]string{}, m.violOrder...),
	}
	if !m.longest.From.IsZero() {
		f.LongestUnownedFrom = m.longest.From.UTC().Format("15:04:05.000")
	}
	if m.lease > 0 {
		f.LongestGapOverLease = round2(float64(m.longest.Len) / float64(m.lease))
	}
	sort.Strings(f.InvariantViolations)
	return f
}

// allGaps returns every unowned gap observed.
func (m *monitor) allGaps() []gap {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]gap(nil), m.gaps...)
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }
