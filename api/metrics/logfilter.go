package metrics

import "github.com/prometheus/client_golang/prometheus"

// rsc_log_lines_filtered_total{level,kind}: lines of the actor and cluster
// libraries the coordinator's log filter dropped because they are expected
// in normal operation (actors/host/libfilter.go), by the level the library
// used and the kind of line.
func (m *Metrics) registerLogFilter() {
	m.logFiltered = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rsc_log_lines_filtered_total",
		Help: "Actor/cluster library log lines dropped as expected in normal operation, by the library's level and kind."}, []string{"level", "kind"})
	m.reg.MustRegister(m.logFiltered)
}

// LibraryLineFiltered counts one filtered library log line.
func (m *Metrics) LibraryLineFiltered(level, kind string) {
	if m != nil {
		m.logFiltered.WithLabelValues(level, kind).Inc()
	}
}
