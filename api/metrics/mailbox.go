package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Redis mailbox transport (mailbox/, through its Options.Metrics):
//
//	rsc_mailbox_requests_total{result}    requests read from the request streams,
//	                                      by result: ok, rejected, forbidden, error, expired
//	rsc_mailbox_request_duration_seconds  read to reply pushed
type mailboxMetrics struct {
	requests *prometheus.CounterVec
	duration prometheus.Histogram
}

// MailboxResults are the result labels of rsc_mailbox_requests_total; their
// series exist from the start (at 0).
var MailboxResults = []string{"ok", "rejected", "forbidden", "error", "expired"}

func (m *Metrics) registerMailbox() {
	m.mailbox = mailboxMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rsc_mailbox_requests_total",
			Help: "Redis mailbox requests by result: ok (answered 200), rejected (malformed: answered 400 or dropped), forbidden (403), error (other 4xx/5xx), expired (the member had stopped waiting: dropped)."},
			[]string{"result"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "rsc_mailbox_request_duration_seconds",
			Help: "Redis mailbox request handling time, read to reply pushed.", Buckets: mailboxLatency}),
	}
	for _, r := range MailboxResults {
		m.mailbox.requests.WithLabelValues(r)
	}
	m.reg.MustRegister(m.mailbox.requests, m.mailbox.duration)
}

// MailboxRequest counts one mailbox request and observes its duration
// (expired requests are counted, not timed).
func (m *Metrics) MailboxRequest(result string, d time.Duration) {
	if m == nil {
		return
	}
	m.mailbox.requests.WithLabelValues(result).Inc()
	if result != "expired" {
		m.mailbox.duration.Observe(d.Seconds())
	}
}

// mailboxLatency are the buckets of rsc_mailbox_request_duration_seconds,
// those of rsc_heartbeat_duration_seconds (so the transports compare).
var mailboxLatency = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}
