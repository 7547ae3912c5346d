package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Mailbox holds the Redis mailbox transport's metrics (mailbox/, through its
// Options.Metrics), on the registry of a Metrics:
//
//	rsc_mailbox_requests_total{result}    requests read from the request streams,
//	                                      by result: ok, rejected, forbidden, error, expired
//	rsc_mailbox_request_duration_seconds  read to reply pushed
type Mailbox struct {
	requests *prometheus.CounterVec
	duration prometheus.Histogram
}

// MailboxResults are the result labels of rsc_mailbox_requests_total; their
// series exist from the start (at 0).
var MailboxResults = []string{"ok", "rejected", "forbidden", "error", "expired"}

// mailboxLatency are the buckets of rsc_mailbox_request_duration_seconds,
// those of rsc_heartbeat_duration_seconds (so the transports compare).
var mailboxLatency = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}

// NewMailbox registers the mailbox metrics on m's registry (nil m: a
// Mailbox that records nothing).
func NewMailbox(m *Metrics) *Mailbox {
	if m == nil {
		return nil
	}
	mb := &Mailbox{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rsc_mailbox_requests_total",
			Help: "Redis mailbox requests by result: ok (answered 200), rejected (malformed: answered 400 or dropped), forbidden (403), error (other 4xx/5xx), expired (the member had stopped waiting: dropped)."},
			[]string{"result"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "rsc_mailbox_request_duration_seconds",
			Help: "Redis mailbox request handling time, read to reply pushed.", Buckets: mailboxLatency}),
	}
	for _, r := range MailboxResults {
		mb.requests.WithLabelValues(r)
	}
	m.reg.MustRegister(mb.requests, mb.duration)
	return mb
}

// MailboxRequest counts one mailbox request and observes its duration
// (expired requests are counted, not timed).
func (mb *Mailbox) MailboxRequest(result string, d time.Duration) {
	if mb == nil {
		return
	}
	mb.requests.WithLabelValues(result).Inc()
	if result != "expired" {
		mb.duration.Observe(d.Seconds())
	}
}
