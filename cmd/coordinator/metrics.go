package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/persistence"
)

// shellMetrics feeds what the actor shell measures into the Prometheus
// registry served at /metrics. Heartbeat outcomes are counted by the HTTP
// front, which sees every one of them.
type shellMetrics struct{ m *metrics.Metrics }

func (s shellMetrics) Heartbeat(string, time.Duration) {}

func (s shellMetrics) Persist(d time.Duration, err error) {
	s.m.PersistDuration(d.Seconds())
	if err != nil {
		s.m.PersistError()
	}
}

func (s shellMetrics) MemberExpired() { s.m.LeaseExpired() }
func (s shellMetrics) MemberFenced()  { s.m.MemberFenced() }
func (s shellMetrics) Activated()     { s.m.GroupActivated() }
func (s shellMetrics) Passivated()    { s.m.GroupPassivated() }

// FenceWrites implements groupdeps.FenceMetrics.
func (s shellMetrics) FenceWrites(set, clear int) { s.m.FenceWrites(set, clear) }

// MemberIDConflict and PrincipalRefused implement groupdeps.IdentityMetrics.
func (s shellMetrics) MemberIDConflict() { s.m.MemberIDConflict() }
func (s shellMetrics) PrincipalRefused() { s.m.PrincipalRefused() }

func (s shellMetrics) LimitRejected(limit string) { s.m.LimitRejected(limit) }
func (s shellMetrics) RetainedTrimmed(n int)      { s.m.RetainedTrimmed(n) }

func (s shellMetrics) Members(key persistence.GroupKey, counts map[string]int) {
	if counts == nil { // the activation stopped: its node no longer exports the group
		s.m.ForgetGroup(key.StreamPrefix, key.ConsumerGroup)
		s.m.ForgetGroupSample(key.StreamPrefix, key.ConsumerGroup)
		return
	}
	s.m.MembersByState(key.StreamPrefix, key.ConsumerGroup, counts)
}

// metricsListener serves GET /metrics without authentication on
// metrics.addr, for scrapers; every other path is 404. The same registry
// is served, with authentication, at /metrics on http.addr.
type metricsListener struct {
	srv *http.Server
	ln  net.Listener
}

func listenMetrics(addr string, m *metrics.Metrics, errc chan<- error) (*metricsListener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	return &metricsListener{srv: srv, ln: ln}, nil
}

func (l *metricsListener) Addr() net.Addr { return l.ln.Addr() }

func (l *metricsListener) Shutdown(ctx context.Context) error { return l.srv.Shutdown(ctx) }
