package metrics

import "github.com/prometheus/client_golang/prometheus"

// reshardMetrics count migration state changes driven by this node
// (reshard/driver):
//
//	rsc_migration_transitions_total{state}   migrations that entered state on this node's driver
type reshardMetrics struct {
	transitions *prometheus.CounterVec
}

func (m *Metrics) registerReshard() {
	m.reshard = reshardMetrics{
		transitions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rsc_migration_transitions_total",
			Help: "Resharding migrations that entered a state (PREPARING, ACTIVE, DRAINING, DEPRECATED, ROLLING_BACK, ROLLED_BACK), counted by the node that drove them."},
			[]string{"state"}),
	}
	m.reg.MustRegister(m.reshard.transitions)
}

// MigrationState counts a migration entering state (the stream is not a
// label: its name is unbounded).
func (m *Metrics) MigrationState(_, state string) {
	if m != nil {
		m.reshard.transitions.WithLabelValues(state).Inc()
	}
}
