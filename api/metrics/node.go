package metrics

import "github.com/prometheus/client_golang/prometheus"

// nodeMetrics are the node-level counters of activation, passivation, the
// group sweep and store data loss (actors/host, actors/group):
//
//	rsc_group_activations_total    group activations on this node
//	rsc_group_passivations_total   idle groups that gave their activation up
//	rsc_sweep_activations_total    groups activated by the sweep (live members, no live owner)
//	rsc_state_lost_total           detections of Redis having lost coordinator state
//	rsc_node_conflicts             nodes sharing this node's store without being in its cluster (gauge)
//	rsc_node_refusing              1 while this node refuses to serve because of them (gauge)
//	rsc_store_read_only_total      renewals of this node's record Redis refused because it takes no writes
type nodeMetrics struct {
	activations, passivations, sweeps, stateLost, readOnly prometheus.Counter
	conflicts, refusing                                    prometheus.Gauge
}

func (m *Metrics) registerNode() {
	m.node = nodeMetrics{
		activations:  prometheus.NewCounter(prometheus.CounterOpts{Name: "rsc_group_activations_total", Help: "Group activations on this node."}),
		passivations: prometheus.NewCounter(prometheus.CounterOpts{Name: "rsc_group_passivations_total", Help: "Idle groups that passivated (gave their activation up)."}),
		sweeps:       prometheus.NewCounter(prometheus.CounterOpts{Name: "rsc_sweep_activations_total", Help: "Groups with live members and no live owner that the sweep activated."}),
		stateLost:    prometheus.NewCounter(prometheus.CounterOpts{Name: "rsc_state_lost_total", Help: "Detections of Redis having lost coordinator state (grants held for a lease each)."}),
		conflicts: prometheus.NewGauge(prometheus.GaugeOpts{Name: "rsc_node_conflicts",
			Help: "Nodes that share this node's Redis store and key prefix without being members of its cluster (past the grace)."}),
		refusing: prometheus.NewGauge(prometheus.GaugeOpts{Name: "rsc_node_refusing",
			Help: "1 while this node refuses to serve because an earlier node shares its store without forming one cluster with it."}),
		readOnly: prometheus.NewCounter(prometheus.CounterOpts{Name: "rsc_store_read_only_total",
			Help: "Renewals of this node's record that Redis refused because it takes no writes (READONLY: the address is a replica, e.g. after a failover; NOREPLICAS)."}),
	}
	m.reg.MustRegister(m.node.activations, m.node.passivations, m.node.sweeps, m.node.stateLost, m.node.conflicts, m.node.refusing, m.node.readOnly)
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

// StoreReadOnly counts one node record renewal Redis refused because it
// takes no writes.
func (m *Metrics) StoreReadOnly() {
	if m != nil {
		m.node.readOnly.Inc()
	}
}

// NodeConflicts sets the node conflict gauges (actors/node/registry.go).
func (m *Metrics) NodeConflicts(peers int, refusing bool) {
	if m != nil {
		m.node.conflicts.Set(float64(peers))
		r := 0.0
		if refusing {
			r = 1
		}
		m.node.refusing.Set(r)
	}
}
