package metrics

import "github.com/prometheus/client_golang/prometheus"

// nodeMetrics are the node-level counters of activation, passivation, the
// group sweep and store data loss (actors/host, actors/group):
//
//	rsc_group_activations_total    group activations on this node
//	rsc_group_passivations_total   idle groups that gave their activation up
//	rsc_sweep_activations_total    groups activated by the sweep (live members, no live owner)
//	rsc_state_lost_total           detections of Redis having lost coordinator state
type nodeMetrics struct {
	activations, passivations, sweeps, stateLost prometheus.Counter
}

func (m *Metrics) registerNode() {
	m.node = nodeMetrics{
		activations:  prometheus.NewCounter(prometheus.CounterOpts{Name: "rsc_group_activations_total", Help: "Group activations on this node."}),
		passivations: prometheus.NewCounter(prometheus.CounterOpts{Name: "rsc_group_passivations_total", Help: "Idle groups that passivated (gave their activation up)."}),
		sweeps:       prometheus.NewCounter(prometheus.CounterOpts{Name: "rsc_sweep_activations_total", Help: "Groups with live members and no live owner that the sweep activated."}),
		stateLost:    prometheus.NewCounter(prometheus.CounterOpts{Name: "rsc_state_lost_total", Help: "Detections of Redis having lost coordinator state (grants held for a lease each)."}),
	}
	m.reg.MustRegister(m.node.activations, m.node.passivations, m.node.sweeps, m.node.stateLost)
}

// GroupActivated counts one group activation.
func (m *Metrics) GroupActivated() {
	if m != nil {
		m.node.activations.Inc()
	}
}

// GroupPassivated counts one passivation.
func (m *Metrics) GroupPassivated() {
	if m != nil {
		m.node.passivations.Inc()
	}
}

// SweepActivations counts groups the sweep activated.
func (m *Metrics) SweepActivations(n int) {
	if m != nil {
		m.node.sweeps.Add(float64(n))
	}
}

// StateLost counts one detection of store data loss.
func (m *Metrics) StateLost() {
	if m != nil {
		m.node.stateLost.Inc()
	}
}
