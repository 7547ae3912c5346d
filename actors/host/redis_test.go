package host

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

func redisHost(t testing.TB, srv *redistest.Server, opts Options) (*Host, *redisstore.Store) {
	t.Helper()
	store, err := redisstore.New(srv.Client(), redisstore.Options{})
	require.NoError(t, err)
	opts.Store, opts.Provisioner, opts.NodeID = store, redisstore.NewProvisioner(srv.Client()), "n1"
	h := New(opts)
	t.Cleanup(h.Stop)
	require.NoError(t, h.Start(context.Background()))
	return h, store
}

// seedIdleGroups stores n groups the way a passivated group leaves them (meta, no owner).
func seedIdleGroups(t *testing.T, store persistence.Store, n int) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < n; i++ {
		k := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: fmt.Sprintf("g%05d", i)}
		snap, err := store.Activate(ctx, k, "seed/0")
		require.NoError(t, err)
		meta, err := json.Marshal(groupstate.New(quickRules, k.StreamPrefix, k.ConsumerGroup, 4, 1).Meta())
		require.NoError(t, err)
		_, err = store.SaveGroup(ctx, k, snap.ActivationEpoch, snap.Revision, persistence.GroupChange{Meta: meta})
		require.NoError(t, err)
		require.NoError(t, store.ReleaseActivation(ctx, k, snap.ActivationEpoch, nil))
	}
}

// Idle groups cost nothing: with many stored groups and no traffic, the node makes a constant
// number of Redis calls per lease window (its record renewal and the sweep's index read),
// whatever the number of groups, and activates none of them.
func TestIdleNodeRedisCallsDoNotGrowWithStoredGroups(t *testing.T) {
	calls, trips, renewals, sweepReads := map[int]int64{}, map[int]int64{}, map[int]int64{}, map[int]int64{}
	var window time.Duration
	for _, n := range []int{0, 2000} {
		srv := redistest.Start(t)
		store, err := redisstore.New(srv.Client(), redisstore.Options{})
		require.NoError(t, err)
		_, err = store.CreateStream(context.Background(), persistence.StreamRecord{StreamPrefix: "orders", ShardCount: 4, MetadataVersion: 1})
		require.NoError(t, err)
		seedIdleGroups(t, store, n)
		h, _ := redisHost(t, srv, Options{Rules: quickRules, TrustEmptyStore: true, IdlePassivation: time.Second, SweepInterval: 300 * time.Millisecond})
		srv.ResetStats()
		window = 3 * quickRules.LeaseTTL
		time.Sleep(window)
		stats := srv.CommandCalls()
		for cmd, c := range stats {
			if cmd != "config|resetstat" && cmd != "info" {
				calls[n] += c // commands run inside scripts count too
			}
		}
		trips[n] = stats["evalsha"] + stats["zrange"]
		renewals[n], sweepReads[n] = stats["evalsha"], stats["zrange"]
		require.Empty(t, h.router.ActiveKeys(), "an idle node activated stored groups")
		t.Logf("%d stored groups: %d Redis commands, %d round trips in %s (%v)", n, calls[n], trips[n], window, stats)
	}
	rounds := int64(window / group.ConfirmInterval(quickRules))
	sweeps := int64(window / (300 * time.Millisecond))
	require.LessOrEqual(t, trips[2000], rounds+sweeps+10, "one renewal per round and one index read per sweep")
	// Every command is explained by renewals (one EVALSHA running 11 commands with one node in
	// the registry: 6 for the node record, 5 for the registry) and sweep reads: nothing is spent
	// per stored group. (Counts, not timing: a slow box makes fewer rounds.)
	for _, n := range []int{0, 2000} {
		require.LessOrEqual(t, calls[n], 12*renewals[n]+sweepReads[n]+5, "Redis calls of an idle node must not grow with stored groups (%d)", n)
	}
}

// oracle records what each simulated member was told and when it stops reading: a member
// reads a shard from the response that assigned it until a response that no longer assigns it
// (or tells it to drop everything), and at the latest until its self-fence deadline (the send
// time of its last OK heartbeat + lease TTL).
type oracle struct {
	mu       sync.Mutex
	ttl      time.Duration
	held     map[string]map[int]bool      // member → shards it may read now
	deadline map[string]time.Time         // member → self-fence deadline
	released map[string]map[int]time.Time // member → shard → when it stopped reading it
	bad      []string
}

func newOracle(ttl time.Duration) *oracle {
	return &oracle{ttl: ttl, held: map[string]map[int]bool{}, deadline: map[string]time.Time{}, released: map[string]map[int]time.Time{}}
}

// mayRead reports whether member m could still be reading s at t; o.mu held.
func (o *oracle) mayRead(m string, s int, t time.Time) bool {
	if o.held[m][s] {
		return t.Before(o.deadline[m])
	}
	r, ok := o.released[m][s]
	return ok && t.Before(r) && t.Before(o.deadline[m])
}

// told applies a response received at recv to a heartbeat sent at sent.
func (o *oracle) told(m string, sent, recv time.Time, r protocol.HeartbeatResponse) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.held[m] == nil {
		o.held[m], o.released[m] = map[int]bool{}, map[int]time.Time{}
	}
	drop := func(keep map[int]bool) {
		for s := range o.held[m] {
			if !keep[s] {
				delete(o.held[m], s)
				o.released[m][s] = recv
			}
		}
	}
	switch r.Status {
	case protocol.StatusOK:
		keep := map[int]bool{}
		for _, sh := range r.Assignment.AssignedShards {
			s := sh.ShardIndex
			keep[s] = true
			if o.held[m][s] {
				continue
			}
			// Newly granted: the coordinator decided after sent; nobody else may be able to read s then.
			for other := range o.held {
				if other != m && o.mayRead(other, s, sent) {
					o.bad = append(o.bad, fmt.Sprintf("shard %d granted to %s (heartbeat sent %s) while %s may still read it (deadline %s)",
						s, m, sent.Format("15:04:05.000"), other, o.deadline[other].Format("15:04:05.000")))
				}
			}
			o.held[m][s] = true
		}
		drop(keep)
		o.deadline[m] = sent.Add(o.ttl)
	case protocol.StatusUnknownMemberID, protocol.StatusFencedMemberEpoch:
		drop(nil)
	}
}

// member heartbeats like the SDK until stop: rejoin after UNKNOWN/FENCED, report what it reads.
func member(t *testing.T, host func() *Host, o *oracle, id string, stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	var epoch int64
	var owned []protocol.ShardID
	for first := true; ; first = false {
		wait := quickRules.HeartbeatInterval
		if first {
			wait = 0 // a joiner's first heartbeat comes at once
		}
		select {
		case <-stop:
			return
		case <-time.After(wait):
		}
		h := host()
		if h == nil {
			continue // its coordinator is gone: no answer, keep reading until the lease runs out
		}
		sent := time.Now()
		r, err := h.Service().Heartbeat(context.Background(), "orders", "workers", id,
			protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: fmt.Sprint(sent.UnixNano()), MemberID: id, MemberEpoch: epoch, OwnedShards: owned})
		if err != nil {
			continue
		}
		o.told(id, sent, time.Now(), r)
		switch r.Status {
		case protocol.StatusOK:
			epoch, owned = r.MemberEpoch, r.Assignment.AssignedShards
		case protocol.StatusUnknownMemberID, protocol.StatusFencedMemberEpoch:
			epoch, owned = 0, nil
		}
	}
}

// Redis loses everything (FLUSHALL) while a member holds every shard; a provisioning job
// re-creates the stream at once and a new member joins. Nobody is granted a shard another
// member may still read, health says state lost while grants are held, and grants resume.
// With restart, the coordinator restarts at the same moment (no memory of the group): the new
// process serves the joiner at once, while the old member's requests reach it only later, but
// within one heartbeat interval (the longest a member's retries wait).
func TestFlushAllThenStreamRecreatedGivesNoShardTwice(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprintf("restart=%v", restart), func(t *testing.T) { flushAllRecreate(t, restart) })
	}
}

func flushAllRecreate(t *testing.T, restart bool) {
	srv := redistest.Start(t)
	opts := Options{Rules: quickRules, IdlePassivation: time.Minute, SweepInterval: time.Minute}
	h, store := redisHost(t, srv, opts)
	ctx := context.Background()
	// A brand-new deployment (no instance marker) is a new data set, not a loss.
	health := h.Service().Health(ctx)
	require.Nil(t, health.StateLost, "a store without instance marker is a new deployment")
	require.Equal(t, "UP", health.Status)
	four := 4
	_, err := h.Service().CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &four})
	require.NoError(t, err)

	var mu sync.Mutex
	hostA, hostB := h, h
	get := func(p **Host) func() *Host {
		return func() *Host { mu.Lock(); defer mu.Unlock(); return *p }
	}
	o := newOracle(quickRules.LeaseTTL)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go member(t, get(&hostA), o, "a", stop, &wg)
	require.Eventually(t, func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		return len(o.held["a"]) == 4
	}, 10*time.Second, 20*time.Millisecond, "a never got the shards of the new deployment")
	require.Nil(t, h.Service().Health(ctx).StateLost)
	_, before := storedMeta(t, store)

	require.NoError(t, srv.Client().FlushAll(ctx).Err())
	if restart {
		h.Stop()
		mu.Lock()
		hostA = nil // a's requests reach the new process only later (load balancer, DNS)
		mu.Unlock()
		h, store = redisHost(t, srv, opts)
		mu.Lock()
		hostB = h
		mu.Unlock()
		time.AfterFunc(quickRules.HeartbeatInterval*4/5, func() { mu.Lock(); hostA = h; mu.Unlock() })
	}
	_, err = h.Service().CreateStream(ctx, "orders", protocol.CreateStreamRequest{InitialShardCount: &four}) // the provisioning job
	require.NoError(t, err)
	wg.Add(1)
	go member(t, get(&hostB), o, "b", stop, &wg)

	require.Eventually(t, func() bool { return h.Service().Health(ctx).StateLost != nil }, 5*time.Second, 10*time.Millisecond, "health never said state lost")
	require.Eventually(t, func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		return len(o.held["a"])+len(o.held["b"]) == 4 && len(o.held["b"]) > 0
	}, 15*time.Second, 20*time.Millisecond, "grants did not resume after the hold")
	require.Eventually(t, func() bool { return h.Service().Health(ctx).StateLost == nil }, 5*time.Second, 20*time.Millisecond)
	close(stop)
	wg.Wait()
	o.mu.Lock()
	defer o.mu.Unlock()
	require.Empty(t, o.bad, "single-owner violations")
	if !restart {
		_, after := storedMeta(t, store)
		require.Greater(t, after.GroupEpoch, before.GroupEpoch, "the group's epochs continue after the store lost it")
	}
}
