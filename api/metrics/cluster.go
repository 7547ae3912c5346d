package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// clusterMetrics observe requests to group grains (actors/host, cluster
// mode):
//
//	rsc_grain_requests_total{op,remote,outcome}      requests to group grains; remote="true" when the grain ran on another node
//	rsc_grain_request_duration_seconds{op,remote}    time from sending to the grain to its answer (forwarding latency when remote)
//	rsc_cluster_members                              cluster members this node sees (itself included)
type clusterMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	members  prometheus.Gauge
}

func (m *Metrics) registerCluster() {
	m.cluster = clusterMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rsc_grain_requests_total",
			Help: "Requests to group grains by operation, whether the grain ran on another node, and outcome (ok; error: the grain answered an error; unavailable: no answer in time)."},
			[]string{"op", "remote", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rsc_grain_request_duration_seconds",
			Help:    "Time from sending a request to a group grain to its answer; with remote=\"true\" it includes the hop to the hosting node.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}},
			[]string{"op", "remote"}),
		members: prometheus.NewGauge(prometheus.GaugeOpts{Name: "rsc_cluster_members",
			Help: "Members of the actor host cluster this node sees, itself included (0 for cluster.provider single)."}),
	}
	m.reg.MustRegister(m.cluster.requests, m.cluster.duration, m.cluster.members)
}

// GrainRequest observes one request to a group grain.
func (m *Metrics) GrainRequest(op string, remote bool, d time.Duration, outcome string) {
	if m == nil {
		return
	}
	r := strconv.FormatBool(remote)
	m.cluster.requests.WithLabelValues(op, r, outcome).Inc()
	m.cluster.duration.WithLabelValues(op, r).Observe(d.Seconds())
}

// SetClusterMembers records how many cluster members this node sees.
func (m *Metrics) SetClusterMembers(n int) {
	if m != nil {
		m.cluster.members.Set(float64(n))
	}
}
