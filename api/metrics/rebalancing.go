package metrics

import "time"

// SetRebalancingPaused sets rsc_group_rebalancing_paused_seconds of one group
// (sampled.go): how long ago, at now, an operator paused its rebalancing;
// 0 when since is zero (rebalancing active). A function, not a method:
// Metrics is at its method budget. The shipped alert
// RSCGroupRebalancingPausedTooLong fires on it (docs/METRICS.md).
func SetRebalancingPaused(m *Metrics, stream, group string, since, now time.Time) {
	if m == nil {
		return
	}
	v := 0.0
	if !since.IsZero() {
		v = max(0, now.Sub(since).Seconds())
	}
	m.sampled.paused.WithLabelValues(stream, group).Set(v)
}
