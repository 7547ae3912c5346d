package chaos

import (
	"reflect"
	"testing"
	"time"
)

func scheduleFor(seed int64, d time.Duration) []Fault {
	return Generate(ScheduleConfig{Seed: seed, Duration: d, Lease: 2 * time.Second,
		Members: memberIDs(6), Coordinators: 1, Proxies: 1, MaxMembersDown: 2, MaxCoordinatorsDown: 1})
}

// The schedule is a pure function of its config, covers every fault kind
// even in the short run, recovers everything by the end, and keeps the
// bounds liveness is measured under.
func TestScheduleProperties(t *testing.T) {
	for _, seed := range []int64{defaultSeed, 1, 2, 3, 42, 7777} {
		for _, d := range []time.Duration{60 * time.Second, 5 * time.Minute} {
			fs := scheduleFor(seed, d)
			if !reflect.DeepEqual(fs, scheduleFor(seed, d)) {
				t.Fatalf("seed %d: schedule is not deterministic", seed)
			}
			kinds := map[FaultKind]int{}
			for i, f := range fs {
				kinds[f.Kind]++
				if f.At < 0 || f.At+f.For > d || f.For <= 0 || f.Target == "" {
					t.Fatalf("seed %d: fault %d out of bounds: %s", seed, i, f)
				}
				if f.Kind == FaultMemberPause && f.For <= 2*time.Second {
					t.Fatalf("seed %d: pause %s is not longer than the lease", seed, f)
				}
				down := 0 // member faults active when f starts
				for _, g := range fs {
					if (g.Kind == FaultMemberKill || g.Kind == FaultMemberPause) && g.At <= f.At && f.At < g.At+g.For {
						down++
					}
					overlaps := g.At < f.At+f.For && f.At < g.At+g.For
					if !overlaps {
						continue
					}
					if g != f && g.Target == f.Target {
						t.Fatalf("seed %d: %s and %s fault the same target at once", seed, f, g)
					}
					infra := func(k FaultKind) bool { return k == FaultRedisStop || k == FaultCoordinatorKill }
					if g != f && infra(f.Kind) && infra(g.Kind) {
						t.Fatalf("seed %d: Redis and coordinator faults overlap: %s, %s", seed, f, g)
					}
				}
				if down > 2 {
					t.Fatalf("seed %d: more than 2 members down around %s", seed, f)
				}
			}
			for _, k := range AllFaultKinds {
				if kinds[k] == 0 {
					t.Errorf("seed %d, %s: no %s fault", seed, d, k)
				}
			}
		}
	}
	if reflect.DeepEqual(scheduleFor(1, time.Minute), scheduleFor(2, time.Minute)) {
		t.Fatal("different seeds gave the same schedule")
	}
}
