package reshard

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
	"github.com/redisstream/coordinator/test/recorder"
	"github.com/redisstream/coordinator/test/seqprod"
)

const (
	prefix = "orders"
	group  = "workers"
	// grace is resharding.routing-grace in these tests; producers cache
	// routing for routingTTL, below it.
	grace      = 2 * time.Second
	routingTTL = time.Second
	lease      = 2 * time.Second
)

// timing is every coordinator's settings here: short heartbeats and lease,
// a fast resharding driver, a driver lock another node takes over within
// about 2 s, retired keys kept long enough to inspect.
func timing() map[string]string {
	return map[string]string{
		"RSC_COORDINATION_HEARTBEAT_INTERVAL": "250ms",
		"RSC_COORDINATION_MEMBER_LEASE_TTL":   lease.String(),
		"RSC_COORDINATION_REBALANCE_TIMEOUT":  "4s",
		"RSC_RESHARDING_POLL_INTERVAL":        "200ms",
		"RSC_RESHARDING_ROUTING_GRACE":        grace.String(),
		"RSC_RESHARDING_DRIVER_LEASE":         "2s",
		"RSC_RESHARDING_RETIRED_RETENTION":    "1h",
		"RSC_RESHARDING_HISTORY":              "20",
		"RSC_LOG_LEVEL":                       "info",
	}
}

// Node ids of the first coordinator and of the spare (they name the node
// of each migration step).
const (
	nodeA = "node-a"
	nodeB = "node-b"
)

// env is one test's world: its redis-server, its coordinator processes
// (every URL they will ever listen on is known up front) and what runs
// against them.
type env struct {
	t     *testing.T
	redis *redistest.Server
	api   *api
	rec   *recorder.Recorder
	urls  []string

	spareEnv   map[string]string
	sparePort  int
	spareRedis string

	mu      sync.Mutex
	coords  []*harness.Coordinator
	members map[string]*harness.MemberProc
}

// envOptions shape an env.
type envOptions struct {
	// Hold sets RSC_FAILPOINT_RESHARD_HOLD on the first coordinator.
	Hold string
	// Spare reserves the URL of a second coordinator (StartSpare) that
	// members, producers and the test already know.
	Spare bool
	// Persist keeps Redis data across a Redis restart.
	Persist bool
	// RedisAddr, when set, is what coordinators use to reach Redis (a
	// proxy); members and producers always use Redis directly.
	RedisAddr func(real string) string
	Env       map[string]string
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	e := &env{t: t, redis: redistest.StartWithOptions(t, redistest.Options{Persist: o.Persist}), rec: recorder.New(),
		members: map[string]*harness.MemberProc{}}
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	e.urls = []string{"http://127.0.0.1:" + strconv.Itoa(port)}
	spare := 0
	if o.Spare {
		if spare, err = harness.FreePort(); err != nil {
			t.Fatal(err)
		}
		e.urls = append(e.urls, "http://127.0.0.1:"+strconv.Itoa(spare))
	}
	e.api = newAPI(e.urls)
	env := timing()
	for k, v := range o.Env {
		env[k] = v
	}
	env["RSC_CLUSTER_NODE_ID"] = nodeA
	if o.Hold != "" {
		env["RSC_FAILPOINT_RESHARD_HOLD"] = o.Hold
	}
	addr := e.redis.Addr()
	if o.RedisAddr != nil {
		addr = o.RedisAddr(addr)
	}
	e.coords = append(e.coords, harness.StartCoordinator(t, harness.Options{RedisAddr: addr, Env: env, Port: port}))
	if o.Spare {
		e.spareEnv = timing()
		for k, v := range o.Env {
			e.spareEnv[k] = v
		}
		e.spareEnv["RSC_CLUSTER_NODE_ID"] = nodeB
		e.sparePort, e.spareRedis = spare, addr
	}
	return e
}

// StartSpare starts the second coordinator (no failpoint) on the reserved
// URL.
func (e *env) StartSpare() *harness.Coordinator {
	e.t.Helper()
	c := harness.StartCoordinator(e.t, harness.Options{RedisAddr: e.spareRedis, Env: e.spareEnv, Port: e.sparePort})
	e.mu.Lock()
	e.coords = append(e.coords, c)
	e.mu.Unlock()
	return c
}

// first is the first coordinator process.
func (e *env) first() *harness.Coordinator { return e.coords[0] }

// startMember starts (or starts again) member process id; its records go to
// e.rec.
func (e *env) startMember(id string) *harness.MemberProc {
	e.t.Helper()
	m := harness.StartMember(e.t, e.rec, harness.MemberOptions{ID: id, CoordinatorURLs: e.urls, RedisAddr: e.redis.Addr(),
		Stream: prefix, Group: group, Work: time.Millisecond})
	e.mu.Lock()
	e.members[id] = m
	e.mu.Unlock()
	return m
}

func (e *env) member(id string) *harness.MemberProc {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.members[id]
}

// sdkKey is the SDK producer's partition key of entry seq.
func sdkKey(seq int64) string { return "key-" + strconv.FormatInt(seq%61, 10) }

// startSDKProducer publishes seq 1, 2, … through membersdk.Producer (its
// routing cached for routingTTL, below the routing grace) at rate per
// second; failed publishes (a stream at 0 shards, a coordinator down) are
// retried with the same seq.
func (e *env) startSDKProducer(rate int) *seqprod.Producer {
	e.t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: e.redis.Addr(), MaxRetries: 1, DialTimeout: 200 * time.Millisecond,
		ReadTimeout: time.Second, WriteTimeout: time.Second})
	p, err := membersdk.NewProducer(membersdk.ProducerConfig{CoordinatorURLs: e.urls, StreamPrefix: prefix,
		ConsumerGroup: group, Redis: rdb, RoutingTTL: routingTTL, RequestTimeout: time.Second})
	if err != nil {
		e.t.Fatal(err)
	}
	sp := seqprod.Start(p, rate, sdkKey, nil)
	e.t.Cleanup(func() {
		sp.Stop()
		_ = rdb.Close()
	})
	return sp
}

// waitFor polls cond every 100ms until it holds or timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (e *env) waitUntil(timeout time.Duration, what string, cond func() bool) {
	e.t.Helper()
	if !waitFor(timeout, cond) {
		e.t.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}

// waitOwned waits until every shard 0..n-1 is in some member's current
// assignment and nothing is being revoked.
func (e *env) waitOwned(n int, timeout time.Duration) {
	e.t.Helper()
	e.waitUntil(timeout, fmt.Sprintf("every shard of %d owned, nothing revoking", n), func() bool {
		a, err := e.api.assignments()
		if err != nil {
			return false
		}
		owned := map[int]bool{}
		for _, ids := range a.CurrentAssignments {
			for _, s := range ids {
				owned[s.ShardIndex] = true
			}
		}
		for s := 0; s < n; s++ {
			if !owned[s] {
				return false
			}
		}
		return len(a.RevokeProgress) == 0
	})
}

// quietRedis drops go-redis' own log lines (Redis outages are planned here).
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...interface{}) {}

var quietOnce sync.Once

func init() { quietOnce.Do(func() { redis.SetLogger(quietRedis{}) }) }
