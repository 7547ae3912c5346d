package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MemberStates are the states MembersByState always sets (missing ones to 0).
var MemberStates = []string{"STARTING", "ACTIVE", "LEAVING", "EXPIRED", "FENCED"}

// Metrics is one set of coordinator metrics on its own registry.
type Metrics struct {
	reg *prometheus.Registry

	logFiltered *prometheus.CounterVec // logfilter.go

	// Children of the per-request vectors, looked up once per label set:
	// resolving labels (hashing, a locked map) on every request costs more
	// than the observation itself.
	httpSeries      sync.Map // httpSeriesKey → *httpSeries
	heartbeatSeries sync.Map // transport + "\x00" + status → prometheus.Counter

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	heartbeats   *prometheus.CounterVec
	heartbeatDur *prometheus.HistogramVec
	// heartbeatDurOf: heartbeatDur's child per transport (HeartbeatTransports).
	heartbeatDurOf map[string]prometheus.Observer
	persistDur     prometheus.Histogram
	persistErrors  prometheus.Counter
	groupsActive   prometheus.Gauge
	members        *prometheus.GaugeVec
	leaseExpiries  prometheus.Counter
	membersFenced  prometheus.Counter
	node           nodeMetrics    // node.go
	reshard        reshardMetrics // reshard.go
	limitRejects   *prometheus.CounterVec
	retainedTrims  prometheus.Counter
	cluster        clusterMetrics
	fenceWrites    *prometheus.CounterVec // fence.go
	idConflicts    prometheus.Counter     // identity.go
	principalRefs  prometheus.Counter     // identity.go
	sampled        sampledMetrics         // sampled.go
	authFailures   *prometheus.CounterVec // auth.go

	tokenGenReadFailures prometheus.Counter // auth.go
}

// LimitKeys are the config keys of the limits counted by LimitRejected; their
// series exist from the start (at 0), so alerts and dashboards see them.
var LimitKeys = []string{
	"limits.groups-per-stream", "limits.members-per-group", "limits.joins-per-second",
}

// Default is the process-wide instance served on /metrics.
var Default = New()

// New returns a fresh set of metrics registered on a new registry, with the
// Go runtime and process collectors.
func New() *Metrics {
	latency := []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rsc_http_requests_total", Help: "HTTP requests by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "rsc_http_request_duration_seconds", Help: "HTTP request handling time by route pattern.", Buckets: latency,
		}, []string{"route"}),
		heartbeats: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rsc_heartbeats_total", Help: "Heartbeats by transport (http, redis) and protocol status (REJECTED: 4xx at the transport's edge, ERROR: 5xx).",
		}, []string{"transport", "status"}),
		heartbeatDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "rsc_heartbeat_duration_seconds", Help: "Heartbeat handling time by transport: decode to response (http), read to reply pushed (redis).", Buckets: latency,
		}, []string{"transport"}),
		persistDur: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "rsc_persist_duration_seconds", Help: "Duration of group state writes to the store.", Buckets: latency,
		}),
		persistErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rsc_persist_errors_total", Help: "Group state writes that failed.",
		}),
		groupsActive: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rsc_groups_active", Help: "Group actor activations on this node.",
		}),
		members: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "rsc_members", Help: "Members by group and state.",
		}, []string{"stream_prefix", "consumer_group", "state"}),
		leaseExpiries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rsc_lease_expirations_total", Help: "Member leases that expired.",
		}),
		membersFenced: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rsc_members_fenced_total", Help: "Members fenced by the coordinator.",
		}),
		limitRejects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rsc_limit_rejections_total", Help: "Requests refused by a configured limit, by the limit's config key.",
		}, []string{"limit"}),
		retainedTrims: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rsc_retained_members_trimmed_total",
			Help: "Expired/fenced members dropped before member-retention ended because a group reached limits.retained-members-per-group.",
		}),
	}
	for _, k := range LimitKeys {
		m.limitRejects.WithLabelValues(k)
	}
	m.heartbeatDurOf = map[string]prometheus.Observer{}
	for _, t := range HeartbeatTransports {
		m.heartbeatDurOf[t] = m.heartbeatDur.WithLabelValues(t)
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.httpRequests, m.httpDuration, m.heartbeats, m.heartbeatDur,
		m.persistDur, m.persistErrors, m.groupsActive, m.members,
		m.leaseExpiries, m.membersFenced, m.limitRejects, m.retainedTrims,
	)
	m.registerNode()
	m.registerLogFilter()
	m.registerReshard()
	m.registerCluster()
	m.registerFence()
	m.registerIdentity()
	m.registerSampled()
	m.registerAuth()
	return m
}

// Registry is the registry the metrics live on.
func (m *Metrics) Registry() *prometheus.Registry {
	if m == nil {
		return nil
	}
	return m.reg
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// ObserveHTTP records one HTTP request. route is the route pattern (bounded
// cardinality), never the raw path. For api/ only.
func (m *Metrics) ObserveHTTP(route, method string, code int, d time.Duration) {
	if m == nil {
		return
	}
	k := httpSeriesKey{route, method, code}
	v, ok := m.httpSeries.Load(k)
	if !ok {
		v, _ = m.httpSeries.LoadOrStore(k, &httpSeries{
			requests: m.httpRequests.WithLabelValues(route, method, strconv.Itoa(code)),
			duration: m.httpDuration.WithLabelValues(route),
		})
	}
	hs := v.(*httpSeries)
	hs.requests.Inc()
	hs.duration.Observe(d.Seconds())
}

type httpSeriesKey struct {
	route, method string
	code          int
}

type httpSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// HeartbeatTransports are the transport labels of rsc_heartbeats_total and
// rsc_heartbeat_duration_seconds (protocol.TransportHTTP, TransportRedis).
var HeartbeatTransports = []string{"http", "redis"}

// ObserveHeartbeat records one heartbeat outcome that arrived through
// transport ("http", "redis") and its handling time. For the transports
// (api/, the mailbox through Mailbox) only.
func (m *Metrics) ObserveHeartbeat(transport, status string, d time.Duration) {
	if m == nil {
		return
	}
	key := transport + "\x00" + status
	v, ok := m.heartbeatSeries.Load(key)
	if !ok {
		v, _ = m.heartbeatSeries.LoadOrStore(key, m.heartbeats.WithLabelValues(transport, status))
	}
	v.(prometheus.Counter).Inc()
	if o, ok := m.heartbeatDurOf[transport]; ok {
		o.Observe(d.Seconds())
	} else {
		m.heartbeatDur.WithLabelValues(transport).Observe(d.Seconds())
	}
}

// PersistDuration records the duration of one store write.
func (m *Metrics) PersistDuration(seconds float64) {
	if m == nil {
		return
	}
	m.persistDur.Observe(seconds)
}

// PersistError counts one failed store write.
func (m *Metrics) PersistError() {
	if m == nil {
		return
	}
	m.persistErrors.Inc()
}

// SetGroupsActive sets the number of group activations on this node.
func (m *Metrics) SetGroupsActive(n int) {
	if m == nil {
		return
	}
	m.groupsActive.Set(float64(n))
}

// MembersByState sets the member counts of one group. States in
// MemberStates that are absent from counts are set to 0.
func (m *Metrics) MembersByState(streamPrefix, group string, counts map[string]int) {
	if m == nil {
		return
	}
	for _, s := range MemberStates {
		m.members.WithLabelValues(streamPrefix, group, s).Set(float64(counts[s]))
	}
	for s, n := range counts {
		if !isKnownState(s) {
			m.members.WithLabelValues(streamPrefix, group, s).Set(float64(n))
		}
	}
}

// ForgetGroup removes a group's member series.
func (m *Metrics) ForgetGroup(streamPrefix, group string) {
	if m == nil {
		return
	}
	m.members.DeletePartialMatch(prometheus.Labels{"stream_prefix": streamPrefix, "consumer_group": group})
}

// LeaseExpired counts one expired member lease.
func (m *Metrics) LeaseExpired() {
	if m == nil {
		return
	}
	m.leaseExpiries.Inc()
}

// MemberFenced counts one fenced member.
func (m *Metrics) MemberFenced() {
	if m == nil {
		return
	}
	m.membersFenced.Inc()
}

// LimitRejected counts one request refused by the limit named by its config
// key (callers pass only the keys of configured limits: bounded cardinality).
func (m *Metrics) LimitRejected(limit string) {
	if m == nil {
		return
	}
	m.limitRejects.WithLabelValues(limit).Inc()
}

func isKnownState(s string) bool {
	for _, k := range MemberStates {
		if k == s {
			return true
		}
	}
	return false
}

// RetainedTrimmed counts n members dropped by limits.retained-members-per-group.
func (m *Metrics) RetainedTrimmed(n int) {
	if m == nil {
		return
	}
	m.retainedTrims.Add(float64(n))
}
