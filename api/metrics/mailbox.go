package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Mailbox holds the Redis mailbox transport's metrics (mailbox/, through its
// Options.Metrics and NudgerOptions.Metrics), on the registry of a Metrics:
//
//	rsc_mailbox_requests_total{result}    requests read from the request streams,
//	                                      by result: ok, rejected, forbidden, error, expired
//	rsc_mailbox_request_duration_seconds  read to reply pushed
//	rsc_mailbox_nudges_total{result}      nudges pushed (sent), dropped (queue full), failed
//
// Every answered request is also counted, like an HTTP heartbeat, in
// rsc_heartbeats_total{transport="redis"} and rsc_heartbeat_duration_seconds{transport="redis"}.
type Mailbox struct {
	m        *Metrics
	requests *prometheus.CounterVec
	duration prometheus.Histogram
	nudges   *prometheus.CounterVec
}

// MailboxResults are the result labels of rsc_mailbox_requests_total; their
// series exist from the start (at 0).
var MailboxResults = []string{"ok", "rejected", "forbidden", "error", "expired"}

// NudgeResults are the result labels of rsc_mailbox_nudges_total.
var NudgeResults = []string{"sent", "dropped", "failed"}

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
		m: m,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rsc_mailbox_requests_total",
			Help: "Redis mailbox requests by result: ok (answered 200), rejected (malformed: answered 400 or dropped), forbidden (403), error (other 4xx/5xx), expired (the member had stopped waiting: dropped)."},
			[]string{"result"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "rsc_mailbox_request_duration_seconds",
			Help: "Redis mailbox request handling time, read to reply pushed.", Buckets: mailboxLatency}),
		nudges: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rsc_mailbox_nudges_total",
			Help: "Nudges to mailbox members whose assignment can grow, by result: sent, dropped (the queue was full), failed (Redis refused or timed out)."},
			[]string{"result"}),
	}
	for _, r := range MailboxResults {
		mb.requests.WithLabelValues(r)
	}
	for _, r := range NudgeResults {
		mb.nudges.WithLabelValues(r)
	}
	m.reg.MustRegister(mb.requests, mb.duration, mb.nudges)
	return mb
}

// MailboxRequest counts one mailbox request and observes its duration
// (expired requests are counted, not timed). status is the heartbeat
// outcome as rsc_heartbeats_total labels it (the protocol status of a 200,
// REJECTED for a 4xx, ERROR for a 5xx; "" when nothing was answered).
func (mb *Mailbox) MailboxRequest(result, status string, d time.Duration) {
	if mb == nil {
		return
	}
	mb.requests.WithLabelValues(result).Inc()
	if result != "expired" {
		mb.duration.Observe(d.Seconds())
	}
	if status != "" {
		mb.m.ObserveHeartbeat("redis", status, d)
	}
}

// MailboxNudge counts one nudge by result (sent, dropped, failed).
func (mb *Mailbox) MailboxNudge(result string) {
	if mb == nil {
		return
	}
	mb.nudges.WithLabelValues(result).Inc()
}
