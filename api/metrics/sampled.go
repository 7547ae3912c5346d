package metrics

import "github.com/prometheus/client_golang/prometheus"

// sampledMetrics are per-group gauges a sampler sets periodically from the
// coordinator's own view and from Redis (cmd/coordinator's group sampler):
//
//	rsc_group_shards             shards of the group's stream
//	rsc_group_unowned_shards     shards no member currently owns (not in any current assignment)
//	rsc_group_revoking_shards    shards a member was told to release and has not released yet
//	rsc_group_waiting_moves      shards whose move is held back (move cap, paused rebalancing)
//	rsc_group_lag                entries not yet delivered to the group, summed over shards (Redis XINFO GROUPS lag)
//	rsc_group_pending            entries delivered but not acknowledged, summed over shards
//	rsc_group_sample_errors_total  samples that failed (Redis or coordinator unreachable)
//	rsc_group_rebalancing_paused_seconds  how long an operator has paused the group's rebalancing (0: active)
//	rsc_metrics_sample_rounds_cut_total  sampling rounds cut at their deadline (the interval)
//	rsc_metrics_sample_round_seconds     duration of the last sampling round
//
// Each node samples the groups it hosts, so each group's series come from
// one node (aggregate with sum or max alike).
type sampledMetrics struct {
	shards, unowned, lag, pending *prometheus.GaugeVec
	revoking, waiting             *prometheus.GaugeVec // the moves in flight and held back
	paused                        *prometheus.GaugeVec // rebalancing.go
	errors, cut                   prometheus.Counter
	round                         prometheus.Gauge
}

func (m *Metrics) registerSampled() {
	labels := []string{"stream_prefix", "consumer_group"}
	m.sampled = sampledMetrics{
		shards:  prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rsc_group_shards", Help: "Shards of the group's stream (sampled)."}, labels),
		unowned: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rsc_group_unowned_shards", Help: "Shards of the group that no member currently owns (sampled)."}, labels),
		revoking: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rsc_group_revoking_shards",
			Help: "Shards of the group a member was told to release and has not released yet (sampled)."}, labels),
		waiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rsc_group_waiting_moves",
			Help: "Shards of the group whose move to another member is held back by the move cap or a paused rebalancing (sampled)."}, labels),
		lag:     prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rsc_group_lag", Help: "Entries not yet delivered to the group, summed over its shards (Redis consumer-group lag, sampled)."}, labels),
		pending: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rsc_group_pending", Help: "Entries delivered to the group but not acknowledged, summed over its shards (sampled)."}, labels),
		paused: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rsc_group_rebalancing_paused_seconds",
			Help: "Seconds since an operator paused the group's rebalancing (POST …/rebalancing); 0 while rebalancing is active (sampled)."}, labels),
		errors: prometheus.NewCounter(prometheus.CounterOpts{Name: "rsc_group_sample_errors_total", Help: "Group samples (assignment or Redis lag reads) that failed."}),
		cut:    prometheus.NewCounter(prometheus.CounterOpts{Name: "rsc_metrics_sample_rounds_cut_total", Help: "Sampling rounds cut at their deadline (the sample interval); the rest is sampled first next round."}),
		round:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "rsc_metrics_sample_round_seconds", Help: "Duration of this node's last sampling round of the per-group gauges."}),
	}
	m.reg.MustRegister(m.sampled.shards, m.sampled.unowned, m.sampled.revoking, m.sampled.waiting, m.sampled.lag, m.sampled.pending, m.sampled.paused, m.sampled.errors, m.sampled.cut, m.sampled.round)
}

// GroupValues are one group's sampled values: its shard counts from the
// group's own state (router.HostedGroup) and its lag and pending entries
// from Redis. Lag < 0 means Redis could not tell.
type GroupValues struct {
	Shards, Unowned, Revoking, Waiting int
	Lag, Pending                       int64
}

// GroupSample sets one group's sampled gauges. With v.Lag < 0 the lag series
// is left as it was.
func (m *Metrics) GroupSample(stream, group string, v GroupValues) {
	if m == nil {
		return
	}
	m.sampled.shards.WithLabelValues(stream, group).Set(float64(v.Shards))
	m.sampled.unowned.WithLabelValues(stream, group).Set(float64(v.Unowned))
	m.sampled.revoking.WithLabelValues(stream, group).Set(float64(v.Revoking))
	m.sampled.waiting.WithLabelValues(stream, group).Set(float64(v.Waiting))
	if v.Lag >= 0 {
		m.sampled.lag.WithLabelValues(stream, group).Set(float64(v.Lag))
	}
	m.sampled.pending.WithLabelValues(stream, group).Set(float64(v.Pending))
}

// ForgetGroupSample drops a group's sampled series (the group is gone).
func (m *Metrics) ForgetGroupSample(stream, group string) {
	if m == nil {
		return
	}
	for _, v := range []*prometheus.GaugeVec{m.sampled.shards, m.sampled.unowned, m.sampled.revoking, m.sampled.waiting, m.sampled.lag, m.sampled.pending, m.sampled.paused} {
		v.DeleteLabelValues(stream, group)
	}
}

// GroupSampleError counts one failed sample.
func (m *Metrics) GroupSampleError() {
	if m != nil {
		m.sampled.errors.Inc()
	}
}

// GroupSampleRound records one sampling round: its duration and whether it
// was cut at its deadline.
func (m *Metrics) GroupSampleRound(seconds float64, cut bool) {
	if m == nil {
		return
	}
	m.sampled.round.Set(seconds)
	if cut {
		m.sampled.cut.Inc()
	}
}
