package e2e

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// TestMoveCapJoinStormBenchmark is the real-process measurement of the move cap
// (docs/BENCHMARKS.md, "Move cap"; issue 20 point 3): real redis-server and coordinator
// processes, default timings (3 s heartbeat interval, 15 s lease); 10 members settle on a
// 1,024-shard stream, then 50 members join at once. Every member is a raw-HTTP heartbeat loop
// of its own on its own clock, following the interval each response tells it (the short one
// while a hand-off is in flight) and releasing a revoked shard at its next heartbeat. Measured
// from the members' own views, updated at every response: the most shards no member reads at
// once (revoked and draining, or released and not yet started by the new owner), and the time
// from the joins to the group's STABLE (monitoring API, polled every 50 ms). Without a cap,
// with assignment.max-moves-per-round 64, and with assignment.max-moves-fraction 0.1. About
// 3 minutes (`make bench-movecap`); not part of `make test` nor `make bench`:
//
//	RSC_BENCH_MOVECAP=1 go test -count=1 -run TestMoveCapJoinStormBenchmark -v ./test/e2e/
func TestMoveCapJoinStormBenchmark(t *testing.T) {
	if os.Getenv("RSC_BENCH_MOVECAP") != "1" {
		t.Skip("benchmark: set RSC_BENCH_MOVECAP=1")
	}
	const shards, old, joiners = 1024, 10, 50
	for _, c := range []struct {
		name string
		env  map[string]string
	}{
		{"no cap", nil},
		{"max-moves-per-round 64", map[string]string{"RSC_ASSIGNMENT_MAX_MOVES_PER_ROUND": "64"}},
		{"max-moves-fraction 0.1", map[string]string{"RSC_ASSIGNMENT_MAX_MOVES_FRACTION": "0.1"}},
	} {
		st := joinStormProcesses(t, c.env, shards, old, joiners)
		t.Logf("BENCH move cap %-24s: most shards unread at once %4d (%2.0f %%), most revoking at once %4d, STABLE %5.1f s after the joins (%d heartbeats)",
			c.name, st.mostUnread, 100*float64(st.mostUnread)/shards, st.mostRevoking, st.stable.Seconds(), st.beats)
		if c.env == nil {
			require.Greater(t, st.mostUnread, shards/2, "without a cap the storm stops most of the group")
		} else {
			require.Less(t, st.mostUnread, shards/4, "with a cap most of the group keeps reading")
		}
	}
}

type stormFigures struct {
	mostUnread, mostRevoking int
	stable                   time.Duration
	beats                    int
}

// joinStormProcesses runs one storm against a coordinator of its own with the extra settings.
func joinStormProcesses(t *testing.T, extra map[string]string, shards, old, joiners int) stormFigures {
	r := redistest.Start(t)
	settings := map[string]string{"RSC_COORDINATION_HEARTBEAT_INTERVAL": "3s", "RSC_COORDINATION_MEMBER_LEASE_TTL": "15s"}
	for k, v := range extra {
		settings[k] = v
	}
	coord := harness.StartCoordinator(t, harness.Options{RedisAddr: r.Addr(), Env: settings})
	e := &env{redis: r, coord: coord, c: harness.NewClient(coord.URL())}
	e.c.CreateStream(t, "orders", shards)
	view := &sharedView{owners: make([]int, shards), unread: shards}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	run := func(id string) {
		wg.Add(1)
		go func() { defer wg.Done(); loopMember(ctx, e.member(id), view) }()
	}
	for i := range old {
		run(fmt.Sprintf("old%02d", i))
	}
	waitFor(t, 2*time.Minute, "the old members settle", func() bool { return groupStable(e, old, shards) })
	view.reset()
	t0 := time.Now()
	for i := range joiners {
		run(fmt.Sprintf("new%02d", i))
	}
	waitFor(t, 10*time.Minute, "the group is STABLE with every joiner", func() bool { return groupStable(e, old+joiners, shards) })
	f := view.figures()
	f.stable = time.Since(t0)
	require.Empty(t, e.assignments(t).InvariantViolations)
	return f
}

// sharedView is what the members read, from their own views: per shard, how many members own
// it (assigned and not told to revoke).
type sharedView struct {
	mu       sync.Mutex
	owners   []int
	unread   int
	draining int
	f        stormFigures
}

func (v *sharedView) reset() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.f = stormFigures{mostUnread: v.unread, mostRevoking: v.draining}
}

func (v *sharedView) figures() stormFigures {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.f
}

// change records one member's view before and after a response.
func (v *sharedView) change(before map[int]bool, drainBefore int, m *harness.Member) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for s := range before {
		if !m.Owned[s] {
			if v.owners[s]--; v.owners[s] == 0 {
				v.unread++
			}
		}
	}
	for s := range m.Owned {
		if !before[s] {
			if v.owners[s]++; v.owners[s] == 1 {
				v.unread--
			}
		}
	}
	v.draining += len(m.Draining) - drainBefore
	v.f.beats++
	v.f.mostUnread, v.f.mostRevoking = max(v.f.mostUnread, v.unread), max(v.f.mostRevoking, v.draining)
}

// loopMember heartbeats as m until ctx ends: it releases what it drains, sends, applies the
// response, records the change and sleeps the interval the response told it.
func loopMember(ctx context.Context, m *harness.Member, view *sharedView) {
	wait := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		before := make(map[int]bool, len(m.Owned))
		for s := range m.Owned {
			before[s] = true
		}
		drainBefore := len(m.Draining)
		m.Release()
		var resp protocol.HeartbeatResponse
		code, _, err := m.C.Do("POST", harness.HeartbeatPath(m.Prefix, m.Group, m.ID), m.Request(), &resp)
		wait = time.Second // the coordinator did not answer: try again
		if err == nil && code == 200 {
			m.Apply(resp)
			if resp.HeartbeatIntervalMs > 0 {
				wait = time.Duration(resp.HeartbeatIntervalMs) * time.Millisecond
			}
		}
		view.change(before, drainBefore, m)
	}
}
