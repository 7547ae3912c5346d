package reshard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Twenty member incarnations join, read without acknowledging and die
// (their heartbeats stop; the coordinator expires them) while a survivor
// works the shards, around a scale-in that is rolled back and one that
// completes: after each step every live shard has at most 3 Redis consumer
// names, and at the end nothing is pending and every entry was processed
// (the shard owners claimed what the dead left and then deleted their
// names, docs/MEMBER-SDK.md "Consumer names").
func TestDeadIncarnationsLeaveNoConsumerNames(t *testing.T) {
	t.Parallel()
	// A grace long enough that the first scale-in is still undone (nothing
	// retired) when its rollback arrives.
	e := newEnv(t, envOptions{Env: map[string]string{"RSC_RESHARDING_ROUTING_GRACE": "6s"}})
	e.api.createStream(t, 4)
	e.startMember("survivor")
	e.waitOwned(4, 30*time.Second)
	mon := e.startMonitor()
	sdk := e.startSDKProducer(40)
	inc := &incarnations{e: e, read: map[string]bool{}}

	inc.waves(5, 2) // 10 incarnations on 4 shards
	e.checkNames(4, "4 shards")

	m := e.api.scale(t, 2)
	e.waitState(m.ReshardingID, 20*time.Second, protocol.MigrationActive, protocol.MigrationDraining)
	if status, raw, _, err := e.api.rollback(m.ReshardingID); err != nil || status != 202 {
		t.Fatalf("rollback of the scale-in: status %d, err %v: %s", status, err, raw)
	}
	e.waitState(m.ReshardingID, 45*time.Second, protocol.MigrationRolledBack)
	e.waitOwned(4, 30*time.Second)
	inc.waves(3, 2) // 6 more
	e.checkNames(4, "after the rollback of a scale-in")

	m = e.api.scale(t, 2)
	e.waitState(m.ReshardingID, 60*time.Second, protocol.MigrationDeprecated)
	e.waitOwned(2, 30*time.Second)
	inc.waves(4, 1) // 4 more: 2 shards, so one at a time
	if n := inc.count(); n < 20 {
		t.Fatalf("only %d incarnations read entries", n)
	}
	e.checkNames(2, "after a scale-in")

	e.checkDataPlane(sdk, nil, mon)
	ctx := context.Background()
	for s := range 2 {
		key := protocol.StreamKey(prefix, s)
		e.waitUntil(10*time.Second, fmt.Sprintf("nothing pending on shard %d", s), func() bool {
			p, err := e.redis.Client().XPending(ctx, key, group).Result()
			return err == nil && p.Count == 0
		})
	}
	e.checkNames(2, "at the end")
}

// checkNames waits until the survivor holds every shard 0…n-1 again (the
// dead incarnations expired), then until each has at most 3 consumer names
// on the group (the shards' owners delete dead members' names when they
// take a shard over), and logs them.
func (e *env) checkNames(n int, when string) {
	e.t.Helper()
	ctx := context.Background()
	e.waitUntil(30*time.Second, when+": the survivor holds every shard", func() bool {
		a, err := e.api.assignments()
		return err == nil && len(a.CurrentAssignments["survivor"]) == n && len(a.RevokeProgress) == 0
	})
	names := func(s int) map[string]int64 {
		cs, err := e.redis.Client().XInfoConsumers(ctx, protocol.StreamKey(prefix, s), group).Result()
		if err != nil {
			return nil
		}
		out := map[string]int64{}
		for _, c := range cs {
			out[c.Name] = c.Pending
		}
		return out
	}
	for s := range n {
		ok := waitFor(20*time.Second, func() bool { ns := names(s); return ns != nil && len(ns) <= 3 })
		if !ok {
			e.t.Errorf("%s: shard %d has %d consumer names (want <= 3): %v", when, s, len(names(s)), names(s))
			continue
		}
		e.t.Logf("%s: shard %d consumer names (pending): %v", when, s, names(s))
	}
}

// incarnations starts member incarnations that read without acknowledging
// and then die.
type incarnations struct {
	e    *env
	next int
	mu   sync.Mutex
	read map[string]bool // incarnations that were handed an entry
}

func (in *incarnations) count() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.read)
}

// waves runs n waves of k incarnations: each wave joins, waits until every
// incarnation of it was handed an entry, and dies.
func (in *incarnations) waves(n, k int) {
	in.e.t.Helper()
	for range n {
		var wave []string
		var kills []func()
		for range k {
			id := fmt.Sprintf("inc-%02d", in.next)
			in.next++
			wave = append(wave, id)
			kills = append(kills, in.start(id))
		}
		in.e.waitUntil(30*time.Second, fmt.Sprintf("incarnations %v read entries", wave), func() bool {
			in.mu.Lock()
			defer in.mu.Unlock()
			for _, id := range wave {
				if !in.read[id] {
					return false
				}
			}
			return true
		})
		for _, kill := range kills {
			kill()
		}
	}
}

// start runs incarnation id in process: its handler never returns until
// its context is cancelled (nothing is acknowledged). The returned kill
// makes every heartbeat fail from then on (the coordinator expires the
// member after its lease, as for a crashed process) and stops it.
func (in *incarnations) start(id string) (kill func()) {
	e := in.e
	rdb := redis.NewClient(&redis.Options{Addr: e.redis.Addr()})
	dt := &dyingTransport{base: http.DefaultTransport}
	c, err := membersdk.NewConsumer(membersdk.ConsumerConfig{CoordinatorURLs: e.urls, StreamPrefix: prefix,
		ConsumerGroup: group, MemberID: id, MemberName: "incarnation", Redis: rdb, HTTPClient: &http.Client{Transport: dt},
		RequestTimeout: time.Second, BlockTimeout: 200 * time.Millisecond},
		func(ctx context.Context, m membersdk.Message) error {
			in.mu.Lock()
			in.read[id] = true
			in.mu.Unlock()
			<-ctx.Done()
			return ctx.Err()
		})
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = c.Run(ctx); close(done) }()
	stop := func() {
		cancel()
		<-done
		_ = rdb.Close()
	}
	e.t.Cleanup(stop)
	return func() {
		dt.dead.Store(true)
		go stop()
	}
}

// dyingTransport fails every request once dead is set.
type dyingTransport struct {
	base http.RoundTripper
	dead atomic.Bool
}

func (d *dyingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if d.dead.Load() {
		return nil, errors.New("incarnation died")
	}
	return d.base.RoundTrip(r)
}
