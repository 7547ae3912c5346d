package assign

import (
	"math"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// checkWeighted checks a Weighted result: every shard exactly once, sorted sets, and every
// member within one shard of its ideal share.
func checkWeighted(t *testing.T, out [][]int, weights []int64, shards int) {
	t.Helper()
	var total int64
	for _, w := range weights {
		total += w
	}
	seen := make([]bool, shards)
	n := 0
	for i, s := range out {
		if s == nil || !shardset.SortedUnique(s) {
			t.Fatalf("member %d: shards %v nil or not sorted", i, s)
		}
		for _, x := range s {
			if x < 0 || x >= shards || seen[x] {
				t.Fatalf("shard %d duplicated or out of range", x)
			}
			seen[x] = true
			n++
		}
		if share := float64(shards) * float64(weights[i]) / float64(total); math.Abs(float64(len(s))-share) >= 1 {
			t.Fatalf("member %d (weight %d) has %d shards, its share is %.2f", i, weights[i], len(s), share)
		}
	}
	if len(out) > 0 && n != shards {
		t.Fatalf("%d of %d shards assigned", n, shards)
	}
}

func TestWeighted(t *testing.T) {
	for _, tc := range []struct {
		name    string
		prev    [][]int
		weights []int64
		shards  int
		want    [][]int
	}{
		{"fresh 8 and 4", [][]int{nil, nil}, []int64{8, 4}, 12, [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11}}},
		{"equal weights are uniform", [][]int{nil, nil, nil}, []int64{5, 5, 5}, 7, [][]int{{0, 1, 2}, {3, 4}, {5, 6}}},
		{"remainder to the largest fraction", [][]int{nil, nil}, []int64{2, 1}, 4, [][]int{{0, 1, 2}, {3}}},
		// The leftover shard stays with the member that already has it (kept > floor).
		{"uneven split keeps the extra where it is", [][]int{{0}, {1, 2, 3}}, []int64{2, 1}, 4, [][]int{{0, 3}, {1, 2}}},
		{"sticky when balanced", [][]int{{4, 5, 6, 7, 8, 9, 10, 11}, {0, 1, 2, 3}}, []int64{8, 4}, 12, [][]int{{4, 5, 6, 7, 8, 9, 10, 11}, {0, 1, 2, 3}}},
		{"capacity up takes only the difference", [][]int{{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 11}}, []int64{8, 4}, 12, [][]int{{0, 1, 2, 3, 4, 5, 10, 11}, {6, 7, 8, 9}}},
		{"more members than shards", [][]int{nil, nil, nil}, []int64{1, 8, 1}, 2, [][]int{{}, {0, 1}, {}}},
		{"bad weights fall back to uniform", [][]int{nil, nil}, []int64{0, 4}, 4, [][]int{{0, 1}, {2, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Weighted(tc.prev, tc.weights, tc.shards)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v want %v", got, tc.want)
			}
			if again := Weighted(tc.prev, tc.weights, tc.shards); !reflect.DeepEqual(again, got) {
				t.Fatal("not deterministic")
			}
		})
	}
}

// TestWeightedRandom: random groups, weights and previous assignments; every result is
// complete and within a shard of every share, and recomputing from a result moves nothing.
func TestWeightedRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for range 500 {
		n, shards := 1+rng.Intn(12), rng.Intn(200)
		weights := make([]int64, n)
		prev := make([][]int, n)
		for i := range weights {
			weights[i] = 1 + rng.Int63n(16)
			for range rng.Intn(shards/n + 3) {
				prev[i] = append(prev[i], rng.Intn(shards+2)-1)
			}
		}
		out := Weighted(prev, weights, shards)
		checkWeighted(t, out, weights, shards)
		if again := Weighted(out, weights, shards); !reflect.DeepEqual(again, out) {
			t.Fatalf("not stable: %v then %v", out, again)
		}
		// Minimal movement: a member keeps min(its quota, what it kept) of its valid shards.
		for i := range out {
			kept := len(shardset.Intersect(out[i], slices.Compact(slices.Sorted(slices.Values(prev[i])))))
			valid := 0
			for _, s := range slices.Compact(slices.Sorted(slices.Values(prev[i]))) {
				if s >= 0 && s < shards && firstClaimant(prev, s) == i {
					valid++
				}
			}
			if kept < min(valid, len(out[i])) {
				t.Fatalf("member %d kept %d of %d valid previous shards with a quota of %d", i, kept, valid, len(out[i]))
			}
		}
	}
}

func firstClaimant(prev [][]int, s int) int {
	for i, p := range prev {
		if slices.Contains(p, s) {
			return i
		}
	}
	return -1
}

func TestWeights(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want []int64
	}{
		{nil, []int64{}},
		{[]int{0, 0}, []int64{1, 1}},
		{[]int{8, 4, 0}, []int64{8, 4, 4}},
		{[]int{2, 16, 4, -1, 0}, []int64{2, 16, 4, 4, 4}},
	} {
		if got := Weights(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Weights(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestDrifted(t *testing.T) {
	for _, tc := range []struct {
		have      int
		w, total  int64
		shards    int
		want      bool
		situation string
	}{
		{6, 4, 8, 12, false, "exact share"},
		{6, 5, 9, 12, false, "share 6.67: less than a shard off"},
		{6, 8, 12, 12, true, "share 8: two shards off"},
		{5000, 6, 10, 8000, false, "share 4800: 200 off is under 10%"},
		{5000, 5, 10, 8000, true, "share 4000: 1000 off is over 10%"},
		{5000, 0, 16, 8000, false, "no weight"},
	} {
		if got := Drifted(tc.have, tc.w, tc.total, tc.shards); got != tc.want {
			t.Errorf("%s: Drifted(%d, %d/%d of %d) = %v", tc.situation, tc.have, tc.w, tc.total, tc.shards, got)
		}
	}
}
