package metrics

import "github.com/prometheus/client_golang/prometheus"

// Fence-write counter (actors/group, shard fences in Redis):
//
//	rsc_shard_fence_writes_total{op}   shard fence writes that landed:
//	                                   op="set" names a new holder, op="clear"
//	                                   leaves the shard with none
//
// A fence is written only when a shard's holder changes (a hand-off is one
// clear and one set), so the rate of this counter is the coordinator's
// extra Redis writes per ownership change; steady heartbeats add nothing.
func (m *Metrics) registerFence() {
	m.fenceWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "rsc_shard_fence_writes_total",
		Help: "Shard fence writes (one per shard whose holder changed): op=set names a new holder, op=clear leaves it with none.",
	}, []string{"op"})
	m.fenceWrites.WithLabelValues("set")
	m.fenceWrites.WithLabelValues("clear")
	m.reg.MustRegister(m.fenceWrites)
}

// FenceWrites counts set fence writes that named a holder and clear writes
// that left a shard with none.
func (m *Metrics) FenceWrites(set, clear int) {
	if m == nil {
		return
	}
	if set > 0 {
		m.fenceWrites.WithLabelValues("set").Add(float64(set))
	}
	if clear > 0 {
		m.fenceWrites.WithLabelValues("clear").Add(float64(clear))
	}
}
