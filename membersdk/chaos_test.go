package membersdk

import (
	"context"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// TestRandomReassignmentsAndFences shuffles the target assignment of three
// members every few heartbeats and fences members at random while a producer
// writes. It checks, from the members' own events, that ownership intervals
// of one shard never overlap between members, that every acknowledgement
// happens inside an ownership interval of the member that made it, and that
// every produced entry is acknowledged.
func TestRandomReassignmentsAndFences(t *testing.T) {
	t.Parallel()
	const shards = 6
	members := []string{"a", "b", "c"}
	rc := setupRedis(t, shards)
	f := newFakeCoord(t, 1)
	f.interval = 50
	var fenceNext sync.Map // member → true: answer its next heartbeat with FENCED
	f.setScript(func(req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool) {
		if req.MemberEpoch > 0 {
			if _, ok := fenceNext.LoadAndDelete(req.MemberID); ok {
				// Called with f.mu held. Like the coordinator, keep what the
				// member last reported as owned blocked for others until it
				// rejoins owning nothing.
				delete(f.epochs, req.MemberID)
				return protocol.HeartbeatResponse{Status: protocol.StatusFencedMemberEpoch}, true
			}
		}
		return protocol.HeartbeatResponse{}, false
	})
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	shuffle := func() {
		perm := rng.Perm(shards)
		live := members[:1+rng.IntN(len(members))]
		targets := map[string][]int{}
		for i, s := range perm {
			m := live[i%len(live)]
			targets[m] = append(targets[m], s)
		}
		for _, m := range members {
			f.setTarget(m, targets[m]...)
		}
	}
	shuffle()

	var ev events
	for _, m := range members {
		cfg := testConfig(f, rc, m, &ev)
		cfg.BlockTimeout = 50 * time.Millisecond
		c, err := NewConsumer(cfg, func(ctx context.Context, msg Message) error {
			time.Sleep(time.Duration(rand.IntN(2)) * time.Millisecond) // simulated work, not a wait
			return nil
		})
		require.NoError(t, err)
		runConsumer(t, c)
	}

	stopProducing := backgroundProducer(t, rc, shards)

	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(time.Duration(100+rng.IntN(200)) * time.Millisecond) // random gap between chaos steps, not a wait
		if rng.IntN(3) == 0 {
			fenceNext.Store(members[rng.IntN(len(members))], true)
		} else {
			shuffle()
		}
	}
	for i, m := range members {
		var mine []int
		for s := i; s < shards; s += len(members) {
			mine = append(mine, s)
		}
		f.setTarget(m, mine...)
	}
	produced := stopProducing()

	acked := func() map[string]string {
		out := map[string]string{}
		for _, e := range ev.find(EventAcked) {
			out[protocol.StreamKey(testStream, e.Shard)+"/"+e.EntryID] = e.MemberID
		}
		return out
	}
	eventually(t, func() bool {
		a := acked()
		for k := range produced {
			if a[k] == "" {
				return false
			}
		}
		return true
	}, 15*time.Second, "every produced entry acknowledged")
	for s := range shards {
		require.Equal(t, int64(0), pendingCount(t, rc, s))
	}

	// Ownership intervals per (member, shard) from the members' events.
	type interval struct {
		member     string
		start, end time.Time
	}
	ev.mu.Lock()
	all := append([]Event(nil), ev.all...)
	ev.mu.Unlock()
	type ms struct {
		member string
		shard  int
	}
	open := map[ms]time.Time{}
	byShard := map[int][]interval{}
	for _, e := range all {
		key := ms{e.MemberID, e.Shard}
		switch e.Type {
		case EventShardStarted:
			open[key] = e.Time
		case EventShardReleased:
			byShard[e.Shard] = append(byShard[e.Shard], interval{e.MemberID, open[key], e.Time})
			delete(open, key)
		}
	}
	for key, start := range open {
		byShard[key.shard] = append(byShard[key.shard], interval{key.member, start, time.Now().Add(time.Hour)})
	}
	fences := len(ev.find(EventFenced))
	handoffs := 0
	for s, ivs := range byShard {
		sort.Slice(ivs, func(i, j int) bool { return ivs[i].start.Before(ivs[j].start) })
		for i := 1; i < len(ivs); i++ {
			if ivs[i].member != ivs[i-1].member {
				handoffs++
			}
			for j := 0; j < i; j++ {
				if ivs[j].member != ivs[i].member && ivs[j].end.After(ivs[i].start) {
					for _, e := range all {
						if e.Shard == s || e.Shard == -1 {
							t.Logf("%s %s shard=%d epoch=%d shards=%v status=%s %v", e.Time.Format("15:04:05.000000"), e.MemberID, e.Shard, e.Epoch, e.Shards, e.Status, e.Type)
						}
					}
					t.Fatalf("shard %d: %s owned it from %v while %s held it until %v", s, ivs[i].member, ivs[i].start, ivs[j].member, ivs[j].end)
				}
			}
		}
	}
	for _, e := range all {
		if e.Type != EventAcked {
			continue
		}
		inside := false
		for _, iv := range byShard[e.Shard] {
			if iv.member == e.MemberID && !e.Time.Before(iv.start) && !e.Time.After(iv.end) {
				inside = true
			}
		}
		require.True(t, inside, "%s acknowledged %d/%s at %v outside its ownership", e.MemberID, e.Shard, e.EntryID, e.Time)
	}
	t.Logf("produced %d, hand-offs %d, fences %d, ack refusals %d", len(produced), handoffs, fences, len(ev.find(EventAckRefused)))
	require.Positive(t, handoffs)
}
