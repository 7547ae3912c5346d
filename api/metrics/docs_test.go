package metrics

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEveryMetricDocumented: every metric this package registers has a row
// in docs/METRICS.md (name, type, labels, meaning), and the document names
// no metric that does not exist.
func TestEveryMetricDocumented(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	name := regexp.MustCompile(`Name:\s*"(rsc_[a-z0-9_]+)"`)
	defined := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range name.FindAllStringSubmatch(string(src), -1) {
			defined[m[1]] = true
		}
	}
	require.GreaterOrEqual(t, len(defined), 20)
	doc, err := os.ReadFile("../../docs/METRICS.md")
	require.NoError(t, err)
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| <a id=\"(rsc_[a-z0-9_]+)\"></a>`(rsc_[a-z0-9_]+)` \\| (counter|gauge|histogram) \\|").FindAllStringSubmatch(string(doc), -1) {
		require.Equal(t, m[1], m[2])
		rows[m[1]] = true
	}
	for n := range defined {
		require.True(t, rows[n], "docs/METRICS.md has no row for %s", n)
	}
	for n := range rows {
		require.True(t, defined[n], "docs/METRICS.md documents %s, which is not registered", n)
	}
}

func TestGroupSample(t *testing.T) {
	m := New()
	m.GroupSample("orders", "g", GroupValues{Shards: 4, Unowned: 1, Revoking: 2, Waiting: 1, Lag: 10, Pending: 2})
	m.GroupSample("orders", "g", GroupValues{Shards: 4, Revoking: 1, Waiting: 3, Lag: -1, Pending: 3}) // lag unknown: kept
	families, err := m.Registry().Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "rsc_group_") && len(f.GetMetric()) == 1 && f.GetMetric()[0].GetGauge() != nil {
			got[f.GetName()] = f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	require.Equal(t, map[string]float64{"rsc_group_shards": 4, "rsc_group_unowned_shards": 0, "rsc_group_revoking_shards": 1, "rsc_group_waiting_moves": 3, "rsc_group_lag": 10, "rsc_group_pending": 3}, got)
	m.ForgetGroupSample("orders", "g")
	families, err = m.Registry().Gather()
	require.NoError(t, err)
	for _, f := range families {
		require.NotContains(t, []string{"rsc_group_shards", "rsc_group_unowned_shards", "rsc_group_revoking_shards", "rsc_group_waiting_moves", "rsc_group_lag", "rsc_group_pending"}, f.GetName())
	}
}
