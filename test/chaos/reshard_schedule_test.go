package chaos

import (
	"reflect"
	"testing"
	"time"
)

// The reshard plan is a pure function of its config, stays within its
// bounds, never asks for the count the plan expects at that moment, rolls
// back only right after a scale (while it still runs), leaves the tail of
// the fault phase free, and has at least one operation even in the short
// runs of `go test`.
func TestReshardScheduleProperties(t *testing.T) {
	for _, seed := range []int64{defaultSeed, 1, 2, 3, 42, 7777} {
		for _, d := range []time.Duration{clusterDuration, defaultDuration, 5 * time.Minute} {
			cfg := ReshardConfig{Seed: seed, Duration: d, Start: 12, Min: 4, Max: 16}
			ops := GenerateReshards(cfg)
			if !reflect.DeepEqual(ops, GenerateReshards(cfg)) {
				t.Fatalf("seed %d, %s: not deterministic", seed, d)
			}
			if len(ops) == 0 {
				t.Fatalf("seed %d, %s: no reshard operation", seed, d)
			}
			cur, prev := cfg.Start, cfg.Start
			var lastAt time.Duration
			for i, f := range ops {
				if f.Kind != FaultReshard || f.For != 0 {
					t.Fatalf("seed %d: op %d: %s", seed, i, f)
				}
				if f.Rollback {
					if i == 0 || ops[i-1].Rollback || f.Shards != prev || f.At-lastAt < 300*time.Millisecond || f.At-lastAt > 1500*time.Millisecond {
						t.Fatalf("seed %d: op %d is not a rollback right after a scale: %s", seed, i, f)
					}
					cur = prev
					continue
				}
				if f.At > d-8*time.Second || (i > 0 && f.At-lastAt < 6*time.Second-1500*time.Millisecond) {
					t.Fatalf("seed %d, %s: op %d at %s (previous scale at %s)", seed, d, i, f.At, lastAt)
				}
				lastAt = f.At
				if f.Shards < cfg.Min || f.Shards > cfg.Max || f.Shards == cur {
					t.Fatalf("seed %d: op %d scales %d → %d (bounds %d..%d)", seed, i, cur, f.Shards, cfg.Min, cfg.Max)
				}
				prev, cur = cur, f.Shards
			}
		}
	}
	// Without reshard operations the fault schedule is untouched (its
	// golden hashes, TestScheduleSingleNodeGolden, hold), and a merged run
	// adds the operations to the faults as they were.
	if GenerateReshards(ReshardConfig{Seed: 1, Duration: time.Minute, Start: 4, Min: 4, Max: 4}) != nil {
		t.Fatal("bounds with a single count must plan nothing")
	}
}
