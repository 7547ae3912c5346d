package metrics

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFenceWrites(t *testing.T) {
	m := New()
	v := values(t, m)
	require.Contains(t, v, "rsc_shard_fence_writes_total{op=set}", "series exist from the start")
	require.Contains(t, v, "rsc_shard_fence_writes_total{op=clear}")
	m.FenceWrites(3, 0)
	m.FenceWrites(1, 2)
	v = values(t, m)
	require.Equal(t, 4.0, v["rsc_shard_fence_writes_total{op=set}"])
	require.Equal(t, 2.0, v["rsc_shard_fence_writes_total{op=clear}"])
	var nilM *Metrics
	nilM.FenceWrites(1, 1) // no-op
}
