package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// lossOracle follows simulated members, one request at a time: a member may read a shard
// from the response that granted it until it stops listing it, and at most until its
// self-fence deadline (send time of its last OK heartbeat + lease TTL).
type lossOracle struct {
	ttl      time.Duration
	deadline map[string]time.Time
	bad      []string
}

func (o *lossOracle) beat(t *testing.T, m *harness.Member, others ...*harness.Member) protocol.HeartbeatResponse {
	t.Helper()
	m.Release() // drain at once
	before := readingSet(m)
	sent := time.Now()
	r := m.Send(t, m.Request())
	o.record(m, before, sent, r, others...)
	return r
}

func readingSet(m *harness.Member) map[int]bool {
	before := map[int]bool{}
	for _, s := range m.Shards() {
		before[s] = true
	}
	return before
}

// record applies m's answer r to the request sent at sent (m read before) and checks
// each shard it newly grants against the others' self-fence deadlines.
func (o *lossOracle) record(m *harness.Member, before map[int]bool, sent time.Time, r protocol.HeartbeatResponse, others ...*harness.Member) {
	m.Apply(r)
	if r.Status != protocol.StatusOK {
		return
	}
	for _, sh := range r.Assignment.AssignedShards {
		s := sh.ShardIndex
		if before[s] {
			continue
		}
		for _, other := range others {
			if other.Reading(s) && sent.Before(o.deadline[other.ID]) {
				o.bad = append(o.bad, fmt.Sprintf("shard %d granted to %s (sent %s) while %s may read it until %s",
					s, m.ID, sent.Format("05.000"), other.ID, o.deadline[other.ID].Format("05.000")))
			}
		}
	}
	o.deadline[m.ID] = sent.Add(o.ttl)
}

func health(t *testing.T, e *env) protocol.HealthResponse {
	t.Helper()
	var h protocol.HealthResponse
	e.c.MustDo(t, "GET", "/coord/v1/monitoring/health", nil, &h, 200)
	return h
}

// Redis loses everything (FLUSHALL) while member a reads every shard; a provisioning job
// re-creates the stream at once and member b joins. Run against a real coordinator process,
// once staying up and once restarting at the same moment (no memory of the group; a's
// requests reach the new process late, within one heartbeat interval; the request in
// flight at the restart hanging longer is TestFlushAllRestartWithAHangingRequest). Nobody is told to read a shard
// another member may still read; health reports the loss while grants are held; grants
// resume after it.
func TestFlushAllThenStreamRecreated(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprintf("restart=%v", restart), func(t *testing.T) {
			e := start(t, map[string]string{"RSC_STORE_TRUST_EMPTY_STORE": "false"})
			h := health(t, e)
			require.Equal(t, "UP", h.Status, "a Redis without coordinator state is a new deployment, not a loss")
			require.Nil(t, h.StateLost)
			e.c.CreateStream(t, "orders", 4)
			ttl := 1500 * time.Millisecond
			o := &lossOracle{ttl: ttl, deadline: map[string]time.Time{}}
			a, b := e.member("a"), e.member("b")
			for deadline := time.Now().Add(10 * time.Second); len(a.Shards()) < 4; time.Sleep(250 * time.Millisecond) {
				require.True(t, time.Now().Before(deadline), "a never got its shards")
				o.beat(t, a)
			}
			require.Nil(t, health(t, e).StateLost)

			require.NoError(t, e.redis.Client().FlushAll(context.Background()).Err())
			aPaused := time.Time{}
			if restart {
				// The new process finds a new data set. a's requests reach it late, but within
				// one heartbeat interval (250 ms) of the first request: a member's retries
				// never wait longer than the interval (docs/RELIABILITY.md, "A new data set").
				e.coord.Restart()
				aPaused = time.Now().Add(200 * time.Millisecond)
			}
			e.c.CreateStream(t, "orders", 4) // the provisioning job
			sawLoss := false
			end := time.Now().Add(4 * time.Second)
			for time.Now().Before(end) {
				o.beat(t, b, a)
				if time.Now().After(aPaused) {
					o.beat(t, a, b)
				}
				if health(t, e).StateLost != nil {
					sawLoss = true
				}
				time.Sleep(250 * time.Millisecond)
			}
			require.Empty(t, o.bad, "single-owner violations")
			require.True(t, sawLoss, "health never reported the lost state")
			require.Nil(t, health(t, e).StateLost, "the hold did not end")
			require.Len(t, append(a.Shards(), b.Shards()...), 4, "grants did not resume after the hold")
			require.NotEmpty(t, b.Shards())
			require.Contains(t, e.coord.Logs(), "Redis lost coordinator state")
		})
	}
}
