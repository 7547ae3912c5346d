package metrics

import "github.com/prometheus/client_golang/prometheus"

// Member identity counters (actors/group, through the optional
// groupdeps.IdentityMetrics of its Deps.Metrics):
//
//	rsc_member_id_conflicts_total        (member id, incarnation) pairs refused
//	                                     with MEMBER_ID_IN_USE: a second live
//	                                     process on one member id; a retrying
//	                                     duplicate counts once
//	rsc_member_principal_refusals_total  (member id, principal) pairs refused
//	                                     because another principal joined the
//	                                     member (HTTP 403)
func (m *Metrics) registerIdentity() {
	m.idConflicts = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "rsc_member_id_conflicts_total",
		Help: "Second live processes refused on a member id another process holds (MEMBER_ID_IN_USE), once per member id and incarnation.",
	})
	m.principalRefs = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "rsc_member_principal_refusals_total",
		Help: "Heartbeats or leaves refused because another principal joined the member (403), once per member id and principal.",
	})
	m.reg.MustRegister(m.idConflicts, m.principalRefs)
}

// MemberIDConflict counts one member id conflict.
func (m *Metrics) MemberIDConflict() {
	if m == nil {
		return
	}
	m.idConflicts.Inc()
}

// PrincipalRefused counts one refusal of a member's heartbeats from another principal.
func (m *Metrics) PrincipalRefused() {
	if m == nil {
		return
	}
	m.principalRefs.Inc()
}
