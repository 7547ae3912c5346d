package reshard

import (
	"fmt"
	"sync"
	"time"
)

// monitor polls the group's monitoring routes until stopped and keeps every
// invariant violation the coordinator reported and every step back of an
// epoch or the metadata version.
type monitor struct {
	api *api

	mu          sync.Mutex
	polls       int
	violations  []string
	seen        map[string]bool
	regressions []string
	maxGroup    int64
	maxMeta     int64

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

func (e *env) startMonitor() *monitor {
	m := &monitor{api: e.api, seen: map[string]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
	go m.run(200 * time.Millisecond)
	e.t.Cleanup(m.Stop)
	return m
}

func (m *monitor) run(every time.Duration) {
	defer close(m.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		m.poll()
		select {
		case <-m.stop:
			return
		case <-tick.C:
		}
	}
}

func (m *monitor) poll() {
	g, err := m.api.groupView()
	if err != nil {
		return
	}
	a, err := m.api.assignments()
	if err != nil {
		return
	}
	now := time.Now().UTC().Format("15:04:05.000")
	m.mu.Lock()
	defer m.mu.Unlock()
	m.polls++
	if g.GroupEpoch < m.maxGroup {
		m.regressions = append(m.regressions, fmt.Sprintf("%s groupEpoch %d after %d", now, g.GroupEpoch, m.maxGroup))
	}
	if g.MetadataVersion < m.maxMeta {
		m.regressions = append(m.regressions, fmt.Sprintf("%s metadataVersion %d after %d", now, g.MetadataVersion, m.maxMeta))
	}
	m.maxGroup = max(m.maxGroup, g.GroupEpoch)
	m.maxMeta = max(m.maxMeta, g.MetadataVersion)
	for _, v := range a.InvariantViolations {
		if !m.seen[v] {
			m.seen[v] = true
			m.violations = append(m.violations, now+" "+v)
		}
	}
}

// Stop stops polling; idempotent.
func (m *monitor) Stop() {
	m.once.Do(func() {
		close(m.stop)
		<-m.done
	})
}

// Problems returns the violations and regressions seen, and the number of
// successful polls.
func (m *monitor) Problems() (violations, regressions []string, polls int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.violations...), append([]string(nil), m.regressions...), m.polls
}
