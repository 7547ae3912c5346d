package assign

import (
	"slices"
	"testing"
	"time"
)

func BenchmarkAssignFull10kx100k(b *testing.B) {
	members, _ := bigGroup(10000, 1)
	b.ReportAllocs()
	for b.Loop() {
		Assign(nil, members, 100000)
	}
}

func BenchmarkAssignIncrementalJoin10kx100k(b *testing.B) {
	members, prev := bigGroup(10000, 100000)
	joined := append(slices.Clone(members), "member-zzzzzz")
	b.ReportAllocs()
	for b.Loop() {
		Assign(prev, joined, 100000)
	}
}

// The capacity-weighted variants, beside the uniform ones: compare within one run (issue 20:
// capacity ≤ 2× uniform). Weights 1..16, as from members of mixed sizes.
func BenchmarkAssignWeightedFull10kx100k(b *testing.B) {
	members, _ := bigGroup(10000, 1)
	prevOf, weights := make([][]int, len(members)), mixedWeights(len(members))
	b.ReportAllocs()
	for b.Loop() {
		Weighted(prevOf, weights, 100000)
	}
}

func BenchmarkAssignWeightedIncrementalJoin10kx100k(b *testing.B) {
	members, _ := bigGroup(10000, 1)
	weights := mixedWeights(len(members) + 1)
	prevOf := Weighted(make([][]int, len(members)), weights[:len(members)], 100000)
	prevOf = append(prevOf, nil)
	b.ReportAllocs()
	for b.Loop() {
		Weighted(prevOf, weights, 100000)
	}
}

func mixedWeights(n int) []int64 {
	w := make([]int64, n)
	for i := range w {
		w[i] = int64(1 + i*7%16)
	}
	return w
}

// BenchmarkAssignCapacityRatio10kx100k runs the uniform (Sorted) and the capacity-weighted
// (Weighted) assignor interleaved on the same inputs (10k members, 100k shards, one member
// joining a balanced group) and reports their times and the ratio weighted/uniform: on a
// loaded machine, interleaving keeps both under the same load (issue 20: ratio ≤ 2).
func BenchmarkAssignCapacityRatio10kx100k(b *testing.B) {
	const n, shards = 10000, 100000
	weights := mixedWeights(n + 1)
	prevW := append(Weighted(make([][]int, n), weights[:n], shards), nil)
	prevU := append(Sorted(make([][]int, n), shards), nil)
	var tu, tw time.Duration
	for b.Loop() {
		start := time.Now()
		Sorted(prevU, shards)
		mid := time.Now()
		Weighted(prevW, weights, shards)
		tw += time.Since(mid)
		tu += mid.Sub(start)
	}
	b.ReportMetric(float64(tu.Nanoseconds())/float64(b.N), "uniform-ns/op")
	b.ReportMetric(float64(tw.Nanoseconds())/float64(b.N), "capacity-ns/op")
	b.ReportMetric(float64(tw)/float64(tu), "capacity/uniform")
}
