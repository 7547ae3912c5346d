package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// The move cap with a real coordinator process (issue 20 point 3): 8 members join a settled
// 64-shard group of 2 at once, with assignment.max-moves-per-round 4. Heartbeats go in rounds
// (every member once, in a fixed order, releasing what it was told to revoke at its next
// heartbeat), so each member's own view after every response is exact: never more than 4 shards
// are unread (being revoked, or released and not yet started by their new owner), and the group
// still reaches STABLE with every member at its share. The figures at scale (50 joiners, 1,024
// shards, members heartbeating on their own clocks) are TestMoveCapJoinStormBenchmark.
func TestMoveCapLimitsRevocationsInFlight(t *testing.T) {
	const shards, old, joiners, limit = 64, 2, 8, 4
	e := start(t, map[string]string{"RSC_ASSIGNMENT_MAX_MOVES_PER_ROUND": fmt.Sprint(limit), "RSC_METRICS_SAMPLE_INTERVAL": "100ms",
		// Long enough that the members, paused below while the metrics are read, neither expire
		// nor are fenced for holding their revoked shards.
		"RSC_COORDINATION_MEMBER_LEASE_TTL": "20s", "RSC_COORDINATION_REBALANCE_TIMEOUT": "20s"})
	e.c.CreateStream(t, "orders", shards)
	var ms []*harness.Member
	for i := range old {
		ms = append(ms, e.member(fmt.Sprintf("old%d", i)))
	}
	roundsUntil(t, e, ms, 30, func() bool { return groupStable(e, len(ms), shards) })
	require.Zero(t, unread(shards, ms), "the old members read every shard before the storm")

	for i := range joiners {
		ms = append(ms, e.member(fmt.Sprintf("new%d", i)))
	}
	t0 := time.Now()
	// The joiners join and every member heartbeats without releasing
	// anything until the revocations start: the metrics then show the cap in
	// force (limit moves in flight, the rest waiting) while nothing moves.
	for i := 0; i < 5 && revoking(ms) == 0; i++ {
		for _, m := range ms {
			m.Beat(t)
		}
	}
	require.Equal(t, limit, revoking(ms), "the old members were told to revoke the cap's worth")
	const inFlight, held = `rsc_group_revoking_shards{consumer_group="workers",stream_prefix="orders"}`, `rsc_group_waiting_moves{consumer_group="workers",stream_prefix="orders"}`
	waitMetric(t, e, inFlight, func(v float64) bool { return v == limit })
	waitMetric(t, e, held, func(v float64) bool { return v > 4*limit })
	mostUnread, mostRevoking, revocations := 0, 0, 0
	rounds := roundsUntil(t, e, ms, 200, func() bool {
		return groupStable(e, len(ms), shards)
	}, func(m *harness.Member) {
		u, r := unread(shards, ms), revoking(ms)
		mostUnread, mostRevoking = max(mostUnread, u), max(mostRevoking, r)
		revocations += len(m.Draining)
		require.LessOrEqualf(t, u, limit, "after %s's heartbeat %d shards are unread, cap %d", m.ID, u, limit)
		require.LessOrEqualf(t, r, limit, "after %s's heartbeat %d shards are being revoked, cap %d", m.ID, r, limit)
	})
	t.Logf("cap %d: most shards unread at once %d, most revoking %d, %d revocations, STABLE after %d rounds (%s)",
		limit, mostUnread, mostRevoking, revocations, rounds, time.Since(t0))
	// 64 shards over 10 members: each old member keeps 6 or 7 of its 32, so about 50 move, in
	// batches of at most 4: the cap was in force, not merely unreached.
	require.Greater(t, revocations, 4*limit, "the storm moved many shards")
	require.Equal(t, limit, mostUnread, "the cap was reached")
	for _, m := range ms {
		require.Contains(t, []int{shards / len(ms), shards/len(ms) + 1}, len(m.Shards()), "%s reads its share", m.ID)
	}
	singleOwner(t, e, ms...)
	waitMetric(t, e, inFlight, func(v float64) bool { return v == 0 })
	waitMetric(t, e, held, func(v float64) bool { return v == 0 })
}

// roundsUntil runs heartbeat rounds (each member releases what it drains, then heartbeats) until
// done holds after a round, at most max rounds, calling each after every heartbeat. It returns
// the rounds run.
func roundsUntil(t *testing.T, e *env, ms []*harness.Member, maxRounds int, done func() bool, each ...func(*harness.Member)) int {
	t.Helper()
	for r := 1; r <= maxRounds; r++ {
		for _, m := range ms {
			m.Release()
			m.Beat(t)
			for _, f := range each {
				f(m)
			}
		}
		if done() {
			return r
		}
	}
	t.Fatalf("the group of %d members is not STABLE after %d heartbeat rounds: %+v", len(ms), maxRounds, e.group(t))
	return 0
}

// unread counts the shards no member reads (owns and has not been told to revoke).
func unread(shards int, ms []*harness.Member) int {
	n := shards
	for s := range shards {
		for _, m := range ms {
			if m.Owned[s] {
				n--
				break
			}
		}
	}
	return n
}

// revoking counts the shards members drain (told to revoke, not released yet).
func revoking(ms []*harness.Member) int {
	n := 0
	for _, m := range ms {
		n += len(m.Draining)
	}
	return n
}

func (e *env) group(t *testing.T) protocol.GroupResponse {
	t.Helper()
	var out protocol.GroupResponse
	e.c.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/workers", nil, &out, 200)
	return out
}

// groupStable: the monitoring API says STABLE, with n members owning all shards between them.
func groupStable(e *env, n, shards int) bool {
	var g protocol.GroupResponse
	if code, _, err := e.c.Do("GET", "/coord/v1/monitoring/streams/orders/groups/workers", nil, &g); err != nil || code != 200 {
		return false
	}
	owned := 0
	for _, c := range g.CurrentAssignmentSummary {
		owned += c
	}
	return g.State == protocol.GroupStable && len(g.CurrentAssignmentSummary) == n && owned == shards
}
