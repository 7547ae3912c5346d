package main

import (
	"time"

	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/persistence"
)

// shellMetrics feeds what the actor shell measures into the Prometheus
// registry served at /metrics. Heartbeat outcomes are counted by the HTTP
// front, which sees every one of them.
type shellMetrics struct{ m *metrics.Metrics }

func (s shellMetrics) Heartbeat(string, time.Duration) {}

func (s shellMetrics) Persist(d time.Duration, err error) {
	s.m.PersistDuration(d.Seconds())
	if err != nil {
		s.m.PersistError()
	}
}

func (s shellMetrics) MemberExpired() { s.m.LeaseExpired() }
func (s shellMetrics) MemberFenced()  { s.m.MemberFenced() }
func (s shellMetrics) Activated()     { s.m.GroupActivated() }
func (s shellMetrics) Passivated()    { s.m.GroupPassivated() }

// FenceWrites implements group.FenceMetrics.
func (s shellMetrics) FenceWrites(set, clear int) { s.m.FenceWrites(set, clear) }

func (s shellMetrics) LimitRejected(limit string) { s.m.LimitRejected(limit) }
func (s shellMetrics) RetainedTrimmed(n int)      { s.m.RetainedTrimmed(n) }

func (s shellMetrics) Members(key persistence.GroupKey, counts map[string]int) {
	if counts == nil {
		s.m.ForgetGroup(key.StreamPrefix, key.ConsumerGroup)
		return
	}
	s.m.MembersByState(key.StreamPrefix, key.ConsumerGroup, counts)
}
