package metrics

import "github.com/prometheus/client_golang/prometheus"

// Failed-credential counter (api/authlimit.go):
//
//	rsc_auth_failures_total{outcome}   outcome="failed": wrong or unknown
//	                                   credentials checked and refused (401,
//	                                   or 429 once the address is locked);
//	                                   outcome="locked": refused 429 without a
//	                                   check because the address or the user
//	                                   at that address is locked out
//	rsc_auth_token_generation_read_failures_total
//	                                   failed reads of the token generations
//	                                   (api/tokengen.go)
func (m *Metrics) registerAuth() {
	m.authFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "rsc_auth_failures_total",
		Help: "Failed credentials: outcome=failed (checked and wrong), outcome=locked (refused 429 by the failed-credential limit without a check).",
	}, []string{"outcome"})
	m.authFailures.WithLabelValues("failed")
	m.authFailures.WithLabelValues("locked")
	m.reg.MustRegister(m.authFailures)
	m.tokenGenReadFailures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "rsc_auth_token_generation_read_failures_total",
		Help: "Failed reads of the users' token generations (token revocation, api/tokengen.go); while they fail, admin routes refuse bearer tokens 503.",
	})
	m.reg.MustRegister(m.tokenGenReadFailures)
}

// TokenGenerationReadFailed counts one failed read of the token generations.
func (m *Metrics) TokenGenerationReadFailed() {
	if m == nil {
		return
	}
	m.tokenGenReadFailures.Inc()
}

// AuthFailure counts one failed credential by outcome ("failed" or "locked").
func (m *Metrics) AuthFailure(outcome string) {
	if m == nil {
		return
	}
	m.authFailures.WithLabelValues(outcome).Inc()
}
