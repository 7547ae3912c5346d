package persistencetest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/redisstream/coordinator/persistence"
)

var fenceSeq atomic.Int64

// RunFences runs the shard-fence conformance cases against fences made by
// newFences (a Provisioner). Each case uses its own stream prefix, so one
// shared server is enough.
func RunFences(t *testing.T, newFences func(t *testing.T) persistence.Fences) {
	tests := []struct {
		name string
		fn   func(t *testing.T, f persistence.Fences, prefix string)
	}{
		{"FenceNeverWritten", testFenceNeverWritten},
		{"FenceTokenIncreases", testFenceTokenIncreases},
		{"FenceShardsAndGroupsIndependent", testFenceIndependent},
		{"FenceOddGroupName", testFenceOddGroupName},
		{"FenceEmptyAndInvalid", testFenceEmptyAndInvalid},
		{"FenceCanceledContext", testFenceCanceledContext},
		{"FenceBatchRead", testFenceBatchRead},
		{"FenceBaseOnlyForANewFence", testFenceBase},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, newFences(t), fmt.Sprintf("fence%d", fenceSeq.Add(1)))
		})
	}
}

func getFence(t *testing.T, f persistence.Fences, prefix, group string, shard int) persistence.Fence {
	t.Helper()
	got, err := f.GetFences(context.Background(), prefix, group, []int{shard})
	if err != nil {
		t.Fatalf("GetFences(%s, %s, [%d]): %v", prefix, group, shard, err)
	}
	if len(got) != 1 {
		t.Fatalf("GetFences(%s, %s, [%d]) returned %d fences", prefix, group, shard, len(got))
	}
	return got[0]
}

func setFences(t *testing.T, f persistence.Fences, prefix, group string, u ...persistence.FenceUpdate) {
	t.Helper()
	if err := f.SetFences(context.Background(), prefix, group, u); err != nil {
		t.Fatalf("SetFences(%s, %s, %v): %v", prefix, group, u, err)
	}
}

func testFenceNeverWritten(t *testing.T, f persistence.Fences, prefix string) {
	if got := getFence(t, f, prefix, "g", 0); got != (persistence.Fence{}) {
		t.Fatalf("a fence never written reads %+v, want the zero Fence", got)
	}
}

func testFenceTokenIncreases(t *testing.T, f persistence.Fences, prefix string) {
	steps := []persistence.FenceUpdate{
		{Shard: 0, Owner: "A", Epoch: 2},
		{Shard: 0, Owner: ""},
		{Shard: 0, Owner: "B", Epoch: 5},
		{Shard: 0, Owner: "B", Epoch: 6}, // a re-grant to the same member moves the token too
		{Shard: 0, Owner: ""},
	}
	var last int64
	for i, u := range steps {
		setFences(t, f, prefix, "g", u)
		got := getFence(t, f, prefix, "g", 0)
		if got.Token <= last {
			t.Fatalf("step %d: token %d did not increase from %d", i, got.Token, last)
		}
		if got.Owner != u.Owner || got.Epoch != u.Epoch {
			t.Fatalf("step %d: fence %+v, want owner %q epoch %d", i, got, u.Owner, u.Epoch)
		}
		if got.At.IsZero() {
			t.Fatalf("step %d: fence has no time", i)
		}
		last = got.Token
	}
	if last != int64(len(steps)) {
		t.Fatalf("token %d after %d changes, want %d (one per change)", last, len(steps), len(steps))
	}
}

func testFenceIndependent(t *testing.T, f persistence.Fences, prefix string) {
	setFences(t, f, prefix, "g", persistence.FenceUpdate{Shard: 0, Owner: "A", Epoch: 1},
		persistence.FenceUpdate{Shard: 1, Owner: "B", Epoch: 1}, persistence.FenceUpdate{Shard: 1, Owner: "C", Epoch: 3})
	setFences(t, f, prefix, "h", persistence.FenceUpdate{Shard: 0, Owner: "X", Epoch: 9})
	for _, c := range []struct {
		group string
		shard int
		owner string
		token int64
	}{{"g", 0, "A", 1}, {"g", 1, "C", 2}, {"h", 0, "X", 1}, {"h", 1, "", 0}, {"g", 2, "", 0}} {
		got := getFence(t, f, prefix, c.group, c.shard)
		if got.Owner != c.owner || got.Token != c.token {
			t.Errorf("fence %s/%d = %+v, want owner %q token %d", c.group, c.shard, got, c.owner, c.token)
		}
	}
	if got := getFence(t, f, prefix+"x", "g", 0); got.Token != 0 {
		t.Errorf("another stream shares the fence: %+v", got)
	}
}

func testFenceOddGroupName(t *testing.T, f persistence.Fences, prefix string) {
	odd := "g {x}%|\n\x00é"
	setFences(t, f, prefix, odd, persistence.FenceUpdate{Shard: 3, Owner: "m {1}", Epoch: 4})
	if got := getFence(t, f, prefix, odd, 3); got.Owner != "m {1}" || got.Token != 1 {
		t.Fatalf("odd group fence = %+v", got)
	}
	if got := getFence(t, f, prefix, "g", 3); got.Token != 0 {
		t.Fatalf("odd group name collides with %q: %+v", "g", got)
	}
}

func testFenceEmptyAndInvalid(t *testing.T, f persistence.Fences, prefix string) {
	setFences(t, f, prefix, "g") // nothing to do
	err := f.SetFences(context.Background(), prefix, "g", []persistence.FenceUpdate{{Shard: 0, Owner: "A"}, {Shard: -1, Owner: "B"}})
	if err == nil {
		t.Fatal("a negative shard was accepted")
	}
	if got := getFence(t, f, prefix, "g", 0); got.Token != 0 {
		t.Fatalf("an invalid batch wrote %+v", got)
	}
}

func testFenceCanceledContext(t *testing.T, f persistence.Fences, prefix string) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := f.SetFences(ctx, prefix, "g", []persistence.FenceUpdate{{Shard: 0, Owner: "A"}})
	if !errors.Is(err, persistence.ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Fatalf("SetFences on a canceled context: %v, want ErrUnavailable and context.Canceled", err)
	}
	if _, err := f.GetFences(ctx, prefix, "g", []int{0}); !errors.Is(err, persistence.ErrUnavailable) {
		t.Fatalf("GetFences on a canceled context: %v, want ErrUnavailable", err)
	}
	if got := getFence(t, f, prefix, "g", 0); got.Token != 0 {
		t.Fatalf("a canceled write landed: %+v", got)
	}
}

func testFenceBatchRead(t *testing.T, f persistence.Fences, prefix string) {
	setFences(t, f, prefix, "g", persistence.FenceUpdate{Shard: 2, Owner: "A", Epoch: 1}, persistence.FenceUpdate{Shard: 0, Owner: "B", Epoch: 2})
	got, err := f.GetFences(context.Background(), prefix, "g", []int{2, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Owner != "A" || got[0].Token != 1 || got[1].Token != 0 || got[2].Owner != "B" || got[2].Epoch != 2 {
		t.Fatalf("GetFences([2 1 0]) = %+v", got)
	}
	if got, err := f.GetFences(context.Background(), prefix, "g", nil); err != nil || len(got) != 0 {
		t.Fatalf("GetFences(nil) = %v, %v", got, err)
	}
	if _, err := f.GetFences(context.Background(), prefix, "g", []int{-1}); err == nil {
		t.Fatal("a negative shard was accepted")
	}
}

// A write with a Base creates a missing fence at Base+1; on an existing
// fence the token moves on by one whatever the Base.
func testFenceBase(t *testing.T, f persistence.Fences, prefix string) {
	const base = int64(7) << 32
	setFences(t, f, prefix, "g", persistence.FenceUpdate{Shard: 0, Owner: "A", Epoch: 1, Base: base})
	if got := getFence(t, f, prefix, "g", 0); got.Token != base+1 || got.Owner != "A" {
		t.Fatalf("new fence with base %d: %+v, want token %d owned by A", base, got, base+1)
	}
	setFences(t, f, prefix, "g", persistence.FenceUpdate{Shard: 0, Owner: "B", Epoch: 2, Base: 9 << 32})
	if got := getFence(t, f, prefix, "g", 0); got.Token != base+2 || got.Owner != "B" {
		t.Fatalf("existing fence: %+v, want token %d owned by B (the base applies only to a new fence)", got, base+2)
	}
	setFences(t, f, prefix, "g", persistence.FenceUpdate{Shard: 1, Owner: "C", Epoch: 1})
	if got := getFence(t, f, prefix, "g", 1); got.Token != 1 {
		t.Fatalf("new fence without base: token %d, want 1", got.Token)
	}
}
