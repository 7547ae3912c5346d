package e2e

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// A hostile row of issue 10 (admission); limits_test.go has the
// bounded-state rows and the helpers.

// Row 3: 500 phantom members join (epoch 0, then silence) at 50/s while two
// real members own the group's 16 shards. The real members keep every shard
// owned at least 95 % of the time and no shard is unowned longer than one
// lease; expired phantoms are retained only up to the limit.
func TestPhantomJoinsDoNotTakeShards(t *testing.T) {
	const shards, phantoms, retained = 16, 500, 50
	lease := 2 * time.Second
	e := start(t, map[string]string{
		"RSC_COORDINATION_HEARTBEAT_INTERVAL":   "200ms",
		"RSC_COORDINATION_MEMBER_LEASE_TTL":     lease.String(),
		"RSC_COORDINATION_REBALANCE_TIMEOUT":    "2s",
		"RSC_LIMITS_JOINS_PER_SECOND":           "100", // admit every phantom: this is about admission, not rate
		"RSC_LIMITS_JOIN_BURST":                 "100",
		"RSC_LIMITS_MEMBERS_PER_GROUP":          "1000",
		"RSC_LIMITS_RETAINED_MEMBERS_PER_GROUP": strconv.Itoa(retained),
	})
	e.c.CreateStream(t, "orders", shards)
	a, b := e.member("a"), e.member("b")
	for i := 0; i < 20 && len(a.Shards())+len(b.Shards()) < shards; i++ {
		beatAll(t, 1, a, b)
	}
	require.Equal(t, shards, len(a.Shards())+len(b.Shards()), "the real members own every shard before the flood")

	var mu sync.Mutex
	joinedOK := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second / 50)
		defer tick.Stop()
		for i := 0; i < phantoms; i++ {
			<-tick.C
			m := harness.NewMember(e.c, "orders", "workers", fmt.Sprintf("phantom-%03d", i))
			var resp protocol.HeartbeatResponse
			if status, _, err := e.c.Do("POST", harness.HeartbeatPath("orders", "workers", m.ID), m.Request(), &resp); err == nil && status == 200 && resp.Status == protocol.StatusOK {
				mu.Lock()
				joinedOK++
				mu.Unlock()
			}
		}
	}()

	// The real members heartbeat at their interval and release revocations at
	// once; ownership is sampled after every round, until one lease after the
	// last phantom joined.
	unownedSince := map[int]time.Time{}
	var longest time.Duration
	var ownedTime, totalTime time.Duration
	prev := time.Now()
	prevOwned := shards
	var end time.Time
	for {
		if end.IsZero() {
			select {
			case <-done:
				end = time.Now().Add(lease + 500*time.Millisecond)
			default:
			}
		} else if time.Now().After(end) {
			break
		}
		beatAll(t, 1, a, b)
		now := time.Now()
		dt := now.Sub(prev)
		totalTime += dt * shards
		ownedTime += dt * time.Duration(prevOwned)
		prev = now
		prevOwned = 0
		for s := 0; s < shards; s++ {
			if a.Owned[s] || b.Owned[s] {
				prevOwned++
				if since, ok := unownedSince[s]; ok {
					if gap := now.Sub(since); gap > longest {
						longest = gap
					}
					delete(unownedSince, s)
				}
			} else if _, ok := unownedSince[s]; !ok {
				unownedSince[s] = now
			}
		}
		singleOwner(t, e, a, b)
		time.Sleep(200 * time.Millisecond)
	}
	for _, since := range unownedSince {
		if gap := time.Since(since); gap > longest {
			longest = gap
		}
	}
	mu.Lock()
	ok := joinedOK
	mu.Unlock()
	share := float64(ownedTime) / float64(totalTime)
	t.Logf("phantoms admitted %d/%d; shards owned %.1f%% of the time; longest unowned gap %s", ok, phantoms, 100*share, longest)
	require.GreaterOrEqual(t, ok, phantoms*9/10, "the phantoms were admitted as members (else this tests nothing)")
	require.GreaterOrEqual(t, share, 0.95, "real members keep the shards owned")
	require.LessOrEqual(t, longest, lease, "no shard is unowned longer than one lease")

	// Every phantom's lease has run out: at most `retained` are kept.
	states := map[string]int{}
	for _, m := range e.members(t) {
		states[m.State]++
	}
	require.LessOrEqual(t, states[protocol.MemberExpired]+states[protocol.MemberFenced], retained, "retained members: %v", states)
}
