package e2e

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
	"github.com/redisstream/coordinator/test/recorder"
)

// Static membership with real processes (issue 20 point 1): a rolling restart of static
// members (SIGTERM, then a new process with the same instance id and a new member id) moves
// no shard between members: each new process gets exactly its predecessor's shards back and
// nobody else's assignment changes. The same restart without instance ids moves shards, for
// comparison (docs/BENCHMARKS.md).
func TestStaticRollingRestartMovesNothing(t *testing.T) {
	moved, gap := rollingRestart(t, true, restartMembers(t), 2*restartMembers(t))
	t.Logf("static members: %d shard moves between members, longest gap between two handled entries of a shard %s", moved, gap)
	require.Zero(t, moved, "a rolling restart of static members moves no shard between members")
}

func TestDynamicRollingRestartMovesShards(t *testing.T) {
	moved, gap := rollingRestart(t, false, restartMembers(t), 2*restartMembers(t))
	t.Logf("dynamic members: %d shard moves between members, longest gap between two handled entries of a shard %s", moved, gap)
	require.NotZero(t, moved, "without instance ids a leave hands its shards to the others")
}

// rollingRestart runs n members over shards shards and restarts each in turn (SIGTERM, then a
// new process in its slot: the same instance id when static, a new member id in both cases).
// It returns how many times a shard started in another slot than before (a move between
// members), and the longest time a shard went
// without a handled entry (the producer writes to every shard many times a second).
// restartMembers is how many members the rolling restarts run (4; E2E_RESTART_MEMBERS=10 for
// the measurement in docs/BENCHMARKS.md), each with two shards.
func restartMembers(t *testing.T) int {
	n := 4
	if v := os.Getenv("E2E_RESTART_MEMBERS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 2 {
			t.Fatalf("E2E_RESTART_MEMBERS=%q: want an integer ≥ 2", v)
		}
	}
	return n
}

// restartTime is how long one member's restart takes (stop to start).
const restartTime = time.Second

func rollingRestart(t *testing.T, static bool, n, shards int) (int, time.Duration) {
	e := start(t, map[string]string{"RSC_COORDINATION_STATIC_SESSION_TIMEOUT": "20s"})
	e.c.CreateStream(t, "orders", shards)
	harness.StartProducer(t, harness.ProducerOptions{CoordinatorURLs: []string{e.coord.URL()}, RedisAddr: e.redis.Addr(),
		Stream: "orders", Group: "workers", Rate: 40 * shards})
	rec := recorder.New()
	procs := make([]*harness.MemberProc, n)
	slotOf := map[string]int{}
	launch := func(slot, gen int) {
		id := fmt.Sprintf("slot%d-gen%d", slot, gen)
		o := harness.MemberOptions{ID: id, CoordinatorURLs: []string{e.coord.URL()}, RedisAddr: e.redis.Addr()}
		if static {
			o.InstanceID = fmt.Sprintf("pod-%d", slot)
		}
		slotOf[id] = slot
		procs[slot] = harness.StartMember(t, rec, o)
	}
	formStart := time.Now()
	for i := range n {
		launch(i, 0)
	}
	owners := func() (map[int]string, bool) { // shard → member id, once settled
		out := map[int]string{}
		var resp protocol.MembersResponse
		if code, _, err := e.c.Do("GET", "/coord/v1/monitoring/streams/orders/groups/workers/members", nil, &resp); err != nil || code != 200 {
			return nil, false // the first join has not created the group yet
		}
		live := 0
		for _, m := range resp.Members {
			id := m.MemberID
			if m.State != "ACTIVE" {
				continue
			}
			live++
			if len(m.Pending)+len(m.Revoking) > 0 || !slices.Equal(shardsOf(m.CurrentAssignment), shardsOf(m.TargetAssignment)) {
				return nil, false
			}
			for _, s := range shardsOf(m.CurrentAssignment) {
				out[s] = id
			}
		}
		return out, live == n && len(out) == shards
	}
	// settled: the coordinator's view is balanced and every member has started the shards
	// it names (the member reports SHARD_STARTED after the grant reached it and it took the
	// shard's fence, a moment after the coordinator shows the grant).
	settled := func(slot int) bool {
		own, ok := owners()
		return ok && balanced(slotsOf(own, slotOf), n, shards) && (slot < 0 || ownsAny(slotsOf(own, slotOf), slot)) &&
			startedAsAssigned(rec, own)
	}
	waitFor(t, 30*time.Second, "every member runs its share", func() bool { return settled(-1) })
	t.Logf("group formed after %s", time.Since(formStart))
	// Moves while the group first formed do not count: the last of them is reported
	// before this instant.
	from := time.Now().UnixNano()
	for i := range n {
		t0 := time.Now()
		require.True(t, procs[i].Leave(15*time.Second), "slot %d leaves gracefully", i)
		t.Logf("slot %d left in %s", i, time.Since(t0))
		// The restart itself takes a while (a pod is rescheduled, the process starts): the
		// workload's parameter, not a wait for the system under test. Four heartbeat
		// intervals: long enough for the others to take free shards.
		time.Sleep(restartTime)
		launch(i, 1)
		waitFor(t, 30*time.Second, fmt.Sprintf("slot %d back and the group settled", i), func() bool { return settled(i) })
		t.Logf("slot %d back, settled %s after its stop", i, time.Since(t0))
	}
	return slotChanges(t, rec, slotOf, from), longestGap(rec, shards, from)
}

// slotChanges counts, over every shard, how often the member that started reading it was in
// another slot than the one before (SHARD_STARTED events, in time order).
func slotChanges(t *testing.T, rec *recorder.Recorder, slotOf map[string]int, from int64) int {
	lines := rec.Lines()
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].At < lines[j].At })
	last := map[int]int{}
	moved := 0
	for _, l := range lines {
		if l.Kind != "event" || l.Event != "SHARD_STARTED" {
			continue
		}
		if prev, ok := last[l.Shard]; ok && prev != slotOf[l.Member] && l.At >= from {
			moved++
			t.Logf("move: shard %d started by %s (slot %d, before slot %d) %s after the count began",
				l.Shard, l.Member, slotOf[l.Member], prev, time.Duration(l.At-from))
		}
		last[l.Shard] = slotOf[l.Member]
	}
	return moved
}

// startedAsAssigned reports whether, for every shard in own (shard → member id), the last
// member that reported SHARD_STARTED for it is the member own names.
func startedAsAssigned(rec *recorder.Recorder, own map[int]string) bool {
	lines := rec.Lines()
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].At < lines[j].At })
	last := map[int]string{}
	for _, l := range lines {
		if l.Kind == "event" && l.Event == "SHARD_STARTED" {
			last[l.Shard] = l.Member
		}
	}
	for s, m := range own {
		if last[s] != m {
			return false
		}
	}
	return true
}

// slotsOf turns shard → member id into shard → slot.
func slotsOf(own map[int]string, slotOf map[string]int) map[int]int {
	out := make(map[int]int, len(own))
	for s, id := range own {
		out[s] = slotOf[id]
	}
	return out
}

func balanced(own map[int]int, n, shards int) bool {
	per := map[int]int{}
	for _, slot := range own {
		per[slot]++
	}
	for slot := range n {
		if per[slot] < shards/n || per[slot] > (shards+n-1)/n {
			return false
		}
	}
	return true
}

func ownsAny(own map[int]int, slot int) bool {
	for _, s := range own {
		if s == slot {
			return true
		}
	}
	return false
}

// longestGap is the longest time between two consecutive handled entries of one shard, from
// from on.
func longestGap(rec *recorder.Recorder, shards int, from int64) time.Duration {
	at := make([][]int64, shards)
	for _, l := range rec.Lines() {
		if l.Kind == "handled" && l.Shard >= 0 && l.Shard < shards && l.At >= from {
			at[l.Shard] = append(at[l.Shard], l.At)
		}
	}
	var longest int64
	for _, ts := range at {
		sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
		var g int64
		for i := 1; i < len(ts); i++ {
			g = max(g, ts[i]-ts[i-1])
		}
		longest = max(longest, g)
	}
	return time.Duration(longest)
}
