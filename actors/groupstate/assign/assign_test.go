package assign

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

func checkBalanced(t *testing.T, out map[string][]int, members []string, shards int) {
	t.Helper()
	seen := map[int]bool{}
	lo, hi := shards+1, -1
	for _, id := range members {
		s, ok := out[id]
		if !ok || s == nil {
			t.Fatalf("member %s missing", id)
		}
		if !shardset.SortedUnique(s) {
			t.Fatalf("member %s shards %v not sorted", id, s)
		}
		for _, x := range s {
			if seen[x] || x >= shards {
				t.Fatalf("shard %d duplicated or out of range", x)
			}
			seen[x] = true
		}
		lo, hi = min(lo, len(s)), max(hi, len(s))
	}
	if len(members) > 0 && (len(seen) != shards || hi-lo > 1) {
		t.Fatalf("unbalanced or incomplete: %d of %d shards, sizes %d..%d", len(seen), shards, lo, hi)
	}
}

func TestAssign(t *testing.T) {
	for _, tc := range []struct {
		name    string
		prev    map[string][]int
		members []string
		shards  int
		want    map[string][]int
	}{
		{"empty", nil, nil, 4, map[string][]int{}},
		{"no shards", nil, []string{"a"}, 0, map[string][]int{"a": {}}},
		{"fresh", nil, []string{"b", "a"}, 5, map[string][]int{"a": {0, 1, 2}, "b": {3, 4}}},
		{"sticky", map[string][]int{"a": {2, 3}, "b": {0, 1}}, []string{"a", "b"}, 4, map[string][]int{"a": {2, 3}, "b": {0, 1}}},
		{"sticky drops out-of-range", map[string][]int{"a": {3, 4}, "b": {0, 1}}, []string{"a", "b"}, 4, map[string][]int{"a": {2, 3}, "b": {0, 1}}},
		{"more members than shards", nil, []string{"a", "b", "c"}, 2, map[string][]int{"a": {0}, "b": {1}, "c": {}}},
		// KAFKA-18688: the member already holding base+1 keeps it; nobody moves needlessly.
		{"uneven keeps extra where it is", map[string][]int{"a": {0, 1}, "b": {2, 3, 4}}, []string{"a", "b"}, 5, map[string][]int{"a": {0, 1}, "b": {2, 3, 4}}},
		{"join takes only what balance needs", map[string][]int{"a": {0, 1, 2}, "b": {3, 4, 5}}, []string{"a", "b", "c"}, 6, map[string][]int{"a": {0, 1}, "b": {3, 4}, "c": {2, 5}}},
		{"leave moves only the departed's shards", map[string][]int{"a": {0, 1}, "b": {2, 3}, "c": {4, 5}}, []string{"a", "c"}, 6, map[string][]int{"a": {0, 1, 2}, "c": {3, 4, 5}}},
		{"invalid and duplicate previous shards ignored", map[string][]int{"a": {-1, 1, 9}, "b": {1, 2}}, []string{"a", "b"}, 4, map[string][]int{"a": {0, 1}, "b": {2, 3}}},
		{"duplicates within a member counted once", map[string][]int{"a": {3, 3, 1}}, []string{"a", "b"}, 4, map[string][]int{"a": {1, 3}, "b": {0, 2}}},
		{"keeps the first shards in the order given", map[string][]int{"a": {3, 2, 1, 0}}, []string{"a", "b"}, 4, map[string][]int{"a": {2, 3}, "b": {0, 1}}},
		{"duplicate member ids", nil, []string{"a", "a"}, 2, map[string][]int{"a": {0, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Assign(tc.prev, tc.members, tc.shards)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v want %v", got, tc.want)
			}
			ids := slices.Compact(slices.Sorted(slices.Values(tc.members)))
			checkBalanced(t, got, ids, tc.shards)
			if again := Assign(tc.prev, tc.members, tc.shards); !reflect.DeepEqual(again, got) {
				t.Fatal("not deterministic")
			}
		})
	}
}

func TestAssignIncrementalJoinLargeGroup(t *testing.T) {
	members, prev := bigGroup(1000, 10000)
	full := Assign(prev, members, 10000)
	joined := append(slices.Clone(members), "zzzz")
	next := Assign(full, joined, 10000)
	checkBalanced(t, next, joined, 10000)
	moved := 0
	for _, id := range members {
		if len(shardset.Diff(next[id], full[id])) > 0 {
			t.Fatalf("old member %s gained shards", id)
		}
		moved += len(full[id]) - len(next[id])
	}
	if moved != len(next["zzzz"]) || moved > 10000/1001+1 {
		t.Fatalf("moved %d shards, new member got %d", moved, len(next["zzzz"]))
	}
}

func bigGroup(n, shards int) ([]string, map[string][]int) {
	members := make([]string, n)
	for i := range members {
		members[i] = fmt.Sprintf("member-%06d", i)
	}
	return members, Assign(nil, members, shards)
}
