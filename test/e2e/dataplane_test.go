package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
	"github.com/redisstream/coordinator/test/recorder"
	"github.com/redisstream/coordinator/test/seqprod"
)

// dataPlane is a real redis-server, a real coordinator process, member
// processes using the SDK, and a producer in the test process.
type dataPlane struct {
	t       *testing.T
	redis   *redistest.Server
	coord   *harness.Coordinator
	c       *harness.Client
	rec     *recorder.Recorder
	prod    *seqprod.Producer
	members map[string]*harness.MemberProc
}

func startDataPlane(t *testing.T, shards int) *dataPlane {
	t.Helper()
	r := redistest.StartWithOptions(t, redistest.Options{Persist: true})
	coord := harness.StartCoordinator(t, harness.Options{RedisAddr: r.Addr(), Env: map[string]string{
		"RSC_COORDINATION_HEARTBEAT_INTERVAL": "250ms",
		"RSC_COORDINATION_MEMBER_LEASE_TTL":   "2s",
		"RSC_COORDINATION_REBALANCE_TIMEOUT":  "5s",
	}})
	dp := &dataPlane{t: t, redis: r, coord: coord, c: harness.NewClient(coord.URL()), rec: recorder.New(), members: map[string]*harness.MemberProc{}}
	dp.c.CreateStream(t, "orders", shards)
	return dp
}

func (dp *dataPlane) addMember(id string) {
	dp.members[id] = harness.StartMember(dp.t, dp.rec, harness.MemberOptions{
		ID: id, CoordinatorURLs: []string{dp.coord.URL()}, RedisAddr: dp.redis.Addr(), Work: time.Millisecond,
	})
}

// startProducer publishes sequence numbers at about rate per second
// (test/seqprod).
func (dp *dataPlane) startProducer(rate int) {
	dp.prod = harness.StartProducer(dp.t, harness.ProducerOptions{CoordinatorURLs: []string{dp.coord.URL()},
		RedisAddr: dp.redis.Addr(), Stream: "orders", Group: "workers", Rate: rate})
}

// finish stops the producer, waits until everything produced is
// acknowledged (or timeout), and checks the guarantees.
func (dp *dataPlane) finish(timeout time.Duration) recorder.Report {
	dp.t.Helper()
	produced := dp.prod.Stop()
	require.Positive(dp.t, produced, "the producer published nothing")
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && int64(len(dp.rec.AckedSeqs())) < produced {
		time.Sleep(200 * time.Millisecond)
	}
	if int64(len(dp.rec.AckedSeqs())) < produced {
		n, err := dp.rec.Settle(context.Background(), dp.redis.Client(), "orders", "workers")
		require.NoError(dp.t, err)
		dp.t.Logf("settled %d entries acknowledged in Redis whose acknowledgement no member reported", n)
	}
	rep := dp.rec.Check(produced)
	dp.t.Logf("produced %d, processed %d, lost %d, duplicates %d, hand-offs %d, overlaps %d",
		rep.Produced, rep.Processed, rep.Lost, rep.Duplicates, rep.HandOffs, len(rep.Overlaps))
	require.Zero(dp.t, rep.Lost, "lost entries, e.g. %v", rep.LostSeqs)
	require.Empty(dp.t, rep.Overlaps, "a shard was processed by two members at once")
	return rep
}

func (dp *dataPlane) waitAllOwned(timeout time.Duration, shards int) {
	dp.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		var a protocol.AssignmentsResponse
		status, _, err := dp.c.Do("GET", "/coord/v1/monitoring/streams/orders/groups/workers/assignments", nil, &a)
		if err == nil && status == 200 && len(a.RevokeProgress) == 0 {
			n := 0
			for _, s := range a.CurrentAssignments {
				n += len(s)
			}
			if n == shards {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	dp.t.Fatalf("not every shard owned within %s", timeout)
}

func (dp *dataPlane) events(kind string) int {
	n := 0
	for _, l := range dp.rec.Lines() {
		if l.Kind == "event" && l.Event == kind {
			n++
		}
	}
	return n
}

// progressed waits until the members have acknowledged n entries more than
// when it was called: processing goes on under the current ownership
// before the next phase (a wait on that, not a fixed second of traffic).
func (dp *dataPlane) progressed(n int, timeout time.Duration) {
	dp.t.Helper()
	from := len(dp.rec.AckedSeqs())
	deadline := time.Now().Add(timeout)
	for len(dp.rec.AckedSeqs()) < from+n {
		if time.Now().After(deadline) {
			dp.t.Fatalf("fewer than %d entries acknowledged within %s (from %d)", n, timeout, from)
		}
		time.Sleep(50 * time.Millisecond) // polling interval
	}
}

// selfFenced reports whether every member process has reported a
// SELF_FENCED event.
func (dp *dataPlane) selfFenced() bool {
	fenced := map[string]bool{}
	for _, l := range dp.rec.Lines() {
		if l.Kind == "event" && l.Event == "SELF_FENCED" {
			fenced[l.Member] = true
		}
	}
	for id := range dp.members {
		if !fenced[id] {
			return false
		}
	}
	return true
}

func TestDataPlaneJoinLeaveAndKill(t *testing.T) {
	dp := startDataPlane(t, 6)
	dp.addMember("m0")
	dp.addMember("m1")
	dp.startProducer(150)
	dp.waitAllOwned(20*time.Second, 6)
	dp.progressed(100, 20*time.Second)

	dp.addMember("m2") // join: shards move with revoke-before-assign
	dp.waitAllOwned(20*time.Second, 6)
	dp.progressed(100, 20*time.Second)

	require.True(t, dp.members["m0"].Leave(15*time.Second), "graceful leave finished")
	dp.waitAllOwned(20*time.Second, 6)
	dp.progressed(100, 20*time.Second)

	dp.members["m1"].Kill() // crash: its shards move after its lease
	dp.addMember("m3")
	dp.waitAllOwned(20*time.Second, 6)
	dp.progressed(100, 20*time.Second)

	rep := dp.finish(30 * time.Second)
	require.Positive(t, rep.HandOffs)
	require.Positive(t, dp.events("LEFT"), "m0 left with epoch -1")
}

func TestDataPlaneCoordinatorRestart(t *testing.T) {
	dp := startDataPlane(t, 4)
	dp.addMember("m0")
	dp.addMember("m1")
	dp.startProducer(150)
	dp.waitAllOwned(20*time.Second, 4)
	dp.progressed(100, 20*time.Second)

	dp.coord.Kill()
	time.Sleep(500 * time.Millisecond) // the coordinator stays down a while
	dp.coord.Restart()
	dp.waitAllOwned(20*time.Second, 4)
	// Deliberately let a lease (2 s) pass under the restarted coordinator:
	// nothing may be fenced in it.
	time.Sleep(2 * time.Second)
	require.Zero(t, dp.events("FENCED"), "a coordinator restart alone fences nobody")

	dp.finish(30 * time.Second)
}

func TestDataPlaneRedisOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("Redis outage past every member's lease")
	}
	dp := startDataPlane(t, 4)
	dp.addMember("m0")
	dp.addMember("m1")
	dp.startProducer(100)
	dp.waitAllOwned(20*time.Second, 4)
	dp.progressed(100, 20*time.Second)

	t.Logf("stopping redis at seq %d", dp.prod.Produced())
	dp.redis.Stop()
	// Redis stays away until every member has stopped reading (its lease may
	// have passed), then one more lease (2 s): the outage outlasts every
	// lease, as the former fixed 20 s did, without waiting longer.
	down := time.Now()
	for !dp.selfFenced() && time.Since(down) < 20*time.Second {
		time.Sleep(100 * time.Millisecond) // polling interval
	}
	require.True(t, dp.selfFenced(), "members stop reading once their lease may have passed")
	time.Sleep(2 * time.Second) // deliberately: the outage goes on past the fences
	t.Logf("restarting redis at seq %d, %s after it stopped", dp.prod.Produced(), time.Since(down).Round(time.Millisecond))
	dp.redis.Restart()
	t.Logf("redis restarted")
	dp.waitAllOwned(30*time.Second, 4)
	t.Logf("all owned at seq %d", dp.prod.Produced())
	dp.progressed(100, 30*time.Second)
	dp.finish(40 * time.Second)
}
