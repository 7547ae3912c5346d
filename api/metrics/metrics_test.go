package metrics

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// values gathers m's registry as "name{k=v,…}" → value (counters, gauges,
// and histogram sample counts).
func values(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	fams, err := m.Registry().Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, f := range fams {
		for _, s := range f.GetMetric() {
			var labels []string
			for _, l := range s.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			sort.Strings(labels)
			key := f.GetName() + "{" + strings.Join(labels, ",") + "}"
			switch {
			case s.Counter != nil:
				out[key] = s.GetCounter().GetValue()
			case s.Gauge != nil:
				out[key] = s.GetGauge().GetValue()
			case s.Histogram != nil:
				out[key] = float64(s.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

func TestNilMetricsAreNoOps(t *testing.T) {
	var m *Metrics
	m.ObserveHTTP("r", "GET", 200, 0)
	m.ObserveHeartbeat("http", "OK", 0)
	m.PersistDuration(1)
	m.PersistError()
	m.SetGroupsActive(1)
	m.MembersByState("p", "g", nil)
	m.ForgetGroup("p", "g")
	m.LeaseExpired()
	m.MemberFenced()
	m.LimitRejected("limits.members-per-group")
	require.Nil(t, m.Registry())
}

func TestRecordedValues(t *testing.T) {
	m := New()
	m.MembersByState("orders", "workers", map[string]int{"ACTIVE": 3, "FENCED": 1})
	m.MembersByState("orders", "other", map[string]int{"STARTING": 2})
	m.PersistDuration(0.002)
	m.PersistError()
	m.SetGroupsActive(7)
	m.LeaseExpired()
	m.MemberFenced()
	m.ObserveHeartbeat("http", "OK", 0)
	m.ObserveHTTP("/x", "GET", 200, 0)
	require.Equal(t, 0.0, values(t, m)["rsc_limit_rejections_total{limit=limits.groups-per-stream}"], "limit series exist from the start")
	m.LimitRejected("limits.groups-per-stream")
	m.LimitRejected("limits.groups-per-stream")
	v := values(t, m)
	require.Equal(t, 2.0, v["rsc_limit_rejections_total{limit=limits.groups-per-stream}"])
	require.Equal(t, 0.0, v["rsc_limit_rejections_total{limit=limits.joins-per-second}"])
	require.Equal(t, 3.0, v["rsc_members{consumer_group=workers,state=ACTIVE,stream_prefix=orders}"])
	require.Equal(t, 1.0, v["rsc_members{consumer_group=workers,state=FENCED,stream_prefix=orders}"])
	require.Contains(t, v, "rsc_members{consumer_group=workers,state=LEAVING,stream_prefix=orders}")
	require.Equal(t, 2.0, v["rsc_members{consumer_group=other,state=STARTING,stream_prefix=orders}"])
	require.Equal(t, 7.0, v["rsc_groups_active{}"])
	require.Equal(t, 1.0, v["rsc_persist_errors_total{}"])
	require.Equal(t, 1.0, v["rsc_persist_duration_seconds{}"])
	require.Equal(t, 1.0, v["rsc_lease_expirations_total{}"])
	require.Equal(t, 1.0, v["rsc_members_fenced_total{}"])
	require.Equal(t, 1.0, v["rsc_heartbeats_total{status=OK,transport=http}"])
	require.Equal(t, 1.0, v["rsc_http_requests_total{code=200,method=GET,route=/x}"])

	m.ForgetGroup("orders", "workers")
	v = values(t, m)
	require.NotContains(t, v, "rsc_members{consumer_group=workers,state=ACTIVE,stream_prefix=orders}")
	require.Contains(t, v, "rsc_members{consumer_group=other,state=STARTING,stream_prefix=orders}")
}
