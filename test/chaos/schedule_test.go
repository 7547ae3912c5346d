package chaos

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// scheduleFor is the schedule of the chaos run's settings with the given
// number of coordinators (one slow proxy each; N-1 may be down at once,
// the whole control plane with one).
func scheduleFor(seed int64, d time.Duration, coordinators int) []Fault {
	return scheduleOn(seed, d, coordinators, false)
}

// scheduleOn is scheduleFor on one Redis (sentinel false) or on a primary
// behind Sentinels.
func scheduleOn(seed int64, d time.Duration, coordinators int, sentinel bool) []Fault {
	return Generate(ScheduleConfig{Seed: seed, Duration: d, Lease: 2 * time.Second,
		Members: memberIDs(6), Coordinators: coordinators, Proxies: coordinators, MaxMembersDown: 2,
		MaxCoordinatorsDown: max(1, coordinators-1), Sentinel: sentinel})
}

// The schedule is a pure function of its config, covers every fault kind
// the setup has even in the short run, recovers everything by the end, and
// keeps the bounds liveness is measured under.
func TestScheduleProperties(t *testing.T) {
	for _, nodes := range []int{1, 3} {
		for _, seed := range []int64{defaultSeed, 1, 2, 3, 42, 7777} {
			for _, d := range []time.Duration{60 * time.Second, 5 * time.Minute} {
				checkSchedule(t, nodes, seed, d, false)
				checkSchedule(t, nodes, seed, d, true)
			}
		}
	}
	// The short Sentinel run of make test covers every kind too.
	checkSchedule(t, 1, defaultSeed, sentinelDuration, true)
	if reflect.DeepEqual(scheduleFor(1, time.Minute, 3), scheduleFor(2, time.Minute, 3)) {
		t.Fatal("different seeds gave the same schedule")
	}
}

func checkSchedule(t *testing.T, nodes int, seed int64, d time.Duration, sentinel bool) {
	t.Helper()
	fs := scheduleOn(seed, d, nodes, sentinel)
	if !reflect.DeepEqual(fs, scheduleOn(seed, d, nodes, sentinel)) {
		t.Fatalf("%d nodes, seed %d: schedule is not deterministic", nodes, seed)
	}
	L := 2 * time.Second
	kinds := map[FaultKind]int{}
	for i, f := range fs {
		kinds[f.Kind]++
		if f.At < 0 || f.At+f.For > d || f.For <= 0 || f.Target == "" {
			t.Fatalf("%d nodes, seed %d: fault %d out of bounds: %s", nodes, seed, i, f)
		}
		if f.Kind == FaultMemberPause && f.For <= L {
			t.Fatalf("%d nodes, seed %d: pause %s is not longer than the lease", nodes, seed, f)
		}
		down := 0      // member faults active when f starts
		nodesDown := 0 // node faults (counted until a lease after their end) when f starts
		for _, g := range fs {
			if (g.Kind == FaultMemberKill || g.Kind == FaultMemberPause) && g.At <= f.At && f.At < g.At+g.For {
				down++
			}
			if nodeFault(g.Kind) && g.At <= f.At && f.At < g.At+g.For+L {
				nodesDown++
			}
			overlaps := g.At < f.At+f.For && f.At < g.At+g.For
			if !overlaps || g == f {
				continue
			}
			if g.Target == f.Target {
				t.Fatalf("%d nodes, seed %d: %s and %s fault the same target at once", nodes, seed, f, g)
			}
			if (redisFault(f.Kind) && infraFault(g.Kind)) || (redisFault(g.Kind) && infraFault(f.Kind)) {
				t.Fatalf("%d nodes, seed %d: Redis and coordinator faults overlap: %s, %s", nodes, seed, f, g)
			}
		}
		if down > 2 {
			t.Fatalf("%d nodes, seed %d: more than 2 members down around %s", nodes, seed, f)
		}
		if nodesDown > max(1, nodes-1) {
			t.Fatalf("%d nodes, seed %d: %d nodes down around %s: none left up", nodes, seed, nodesDown, f)
		}
		if nodes == 1 && (f.Kind == FaultCoordinatorPause || f.Kind == FaultCoordinatorRestart) {
			t.Fatalf("seed %d: node fault %s with a single coordinator", seed, f)
		}
	}
	for _, k := range AllFaultKinds {
		if nodes == 1 && (k == FaultCoordinatorPause || k == FaultCoordinatorRestart) {
			continue
		}
		if (k == FaultRedisStop && sentinel) || (k == FaultRedisFailover && !sentinel) {
			if kinds[k] > 0 {
				t.Errorf("%d nodes, seed %d, %s, sentinel %v: %s drawn", nodes, seed, d, sentinel, k)
			}
			continue
		}
		if kinds[k] == 0 {
			t.Errorf("%d nodes, seed %d, %s: no %s fault", nodes, seed, d, k)
		}
	}
	if nodes > 1 && d >= 5*time.Minute {
		overlapping := false // the cluster schedules do take several nodes down at once
		for _, f := range fs {
			for _, g := range fs {
				if f != g && nodeFault(f.Kind) && nodeFault(g.Kind) && g.At < f.At+f.For && f.At < g.At+g.For {
					overlapping = true
				}
			}
		}
		if !overlapping {
			t.Errorf("%d nodes, seed %d, %s: no two node faults overlap", nodes, seed, d)
		}
	}
}

// With one coordinator the schedule is byte for byte what it was before
// the node faults (coordinator pause and graceful restart) existed, so
// seeds replay the single-node runs in docs/RELIABILITY.md. The hashes are
// of FormatSchedule, taken from the generator before that change.
func TestScheduleSingleNodeGolden(t *testing.T) {
	golden := []struct {
		seed   int64
		d      time.Duration
		faults int
		sha256 string
	}{
		{20261129, time.Minute, 26, "5ae48e00a4ad1c4276f0a36e9aef24bb6af1d3c97518bae92756143399dbbbfc"},
		{20261129, 5 * time.Minute, 148, "acc8fef96ad1821f0a63ccdd28b207a5b4a39b4504cfb1caba45c13ef749f888"},
		{1, time.Minute, 28, "4d3c966d966ec31cc1829d856907e42faf4d109ae04441eefa316b85ab97b998"},
		{1, 5 * time.Minute, 150, "9ecdc1081d590b5ea7781102ea6059cd40021bd3c0b18ff5e2a7bbef95d902e1"},
		{7, time.Minute, 31, "ed4ff4d4927c464b88fd383f5ae0b38b0d8e03c1a0b1111686ff276be072f4fd"},
		{7, 5 * time.Minute, 155, "1a58ddcde7126a390ea4309a7c9f50415e7f46f31de0b327d9052b9f1335f893"},
	}
	for _, g := range golden {
		fs := scheduleFor(g.seed, g.d, 1)
		sum := fmt.Sprintf("%x", sha256.Sum256([]byte(FormatSchedule(fs))))
		if len(fs) != g.faults || sum != g.sha256 {
			t.Errorf("seed %d, %s: %d faults, sha256 %s; want %d faults, %s", g.seed, g.d, len(fs), sum, g.faults, g.sha256)
		}
	}
}

// A 3-node schedule of the default seed, as `make chaos` draws it: a
// fingerprint, so that a change to the generator that moves it is seen
// (and the figures in docs/RELIABILITY.md are re-measured).
func TestScheduleThreeNodesSeeded(t *testing.T) {
	fs := scheduleFor(defaultSeed, 2*time.Minute, 3)
	kinds := map[FaultKind]int{}
	for _, f := range fs {
		kinds[f.Kind]++
	}
	t.Logf("seed %d, 2m, 3 nodes: %d faults %v\n%s", defaultSeed, len(fs), kinds, FormatSchedule(fs))
	for _, k := range []FaultKind{FaultCoordinatorKill, FaultCoordinatorPause, FaultCoordinatorRestart} {
		if kinds[k] == 0 {
			t.Errorf("no %s in the 2-minute 3-node schedule", k)
		}
	}
}
