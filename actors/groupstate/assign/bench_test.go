package assign

import (
	"slices"
	"testing"
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
