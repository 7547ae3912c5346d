package chaos

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
	"github.com/redisstream/coordinator/test/recorder"
	"github.com/redisstream/coordinator/test/seqprod"
)

// cluster is everything under test: a real redis-server, the coordinator
// processes, slow proxies in front of them, member processes and a
// producer in the test process.
type cluster struct {
	t     *testing.T
	cfg   config
	redis *redistest.Server // with Redis "single"
	// sentinels is Redis with Redis "sentinel"; rdb reaches the primary
	// of either (through the Sentinels: it follows failovers).
	sentinels *redistest.Sentinels
	rdb       redis.UniversalClient
	coords    []*harness.Coordinator
	hc        *harness.Cluster     // the actor host cluster when there are several coordinators; nil with one
	nodes     []*node              // nodes[i]: what the schedule and the supervisor share about coords[i]
	proxies   []*harness.SlowProxy // proxies[i] forwards to coords[i]
	rec       *recorder.Recorder
	// shards is the stream's shard count the end-of-run checks use (the
	// count after the last migration); inc tells apart the incarnations of
	// shards retired and created again (nil: none).
	shards int
	inc    *recorder.Incarnations

	supMu     sync.Mutex
	restarts  []supervised   // by the supervisor
	stops     []gracefulStop // SIGTERMs of coordinator-restart faults
	lastFault map[int]string // coordinator index → the last fault injected on it

	failedOver []string // redis-failover faults: the primaries killed, in order

	mu      sync.Mutex
	members map[string]*harness.MemberProc
	opts    map[string]harness.MemberOptions
	ids     []string

	prod *seqprod.Producer
}

func (c *cluster) coordinatorURLs() []string {
	var out []string
	for _, co := range c.coords {
		out = append(out, co.URL())
	}
	return out
}

func (c *cluster) proxyURLs() []string {
	var out []string
	for _, p := range c.proxies {
		out = append(out, p.URL())
	}
	return out
}

// quietRedis drops go-redis' own log lines ("failed to dial"): Redis
// outages are scheduled here, and the producer's retries are counted.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...interface{}) {}

var quietOnce sync.Once

func startCluster(t *testing.T, cfg config) *cluster {
	t.Helper()
	quietOnce.Do(func() { redis.SetLogger(quietRedis{}) })
	c := &cluster{t: t, cfg: cfg, rec: recorder.New(), members: map[string]*harness.MemberProc{}, opts: map[string]harness.MemberOptions{},
		lastFault: map[int]string{}, shards: cfg.Shards}
	redisAddr := ""
	env := map[string]string{
		"RSC_COORDINATION_HEARTBEAT_INTERVAL": cfg.Heartbeat.String(),
		"RSC_COORDINATION_MEMBER_LEASE_TTL":   cfg.Lease.String(),
		"RSC_COORDINATION_REBALANCE_TIMEOUT":  cfg.Rebalance.String(),
		"RSC_LOG_LEVEL":                       "info",
		// Reshard operations (FaultReshard): a fast driver, a routing grace
		// above the producer's routing cache (producerRoutingTTL), a driver
		// lock another node takes over within about a lease, retired
		// streams kept for the end-of-run checks.
		"RSC_RESHARDING_POLL_INTERVAL":     "200ms",
		"RSC_RESHARDING_ROUTING_GRACE":     "2s",
		"RSC_RESHARDING_DRIVER_LEASE":      cfg.Lease.String(),
		"RSC_RESHARDING_RETIRED_RETENTION": "1h",
		"RSC_RESHARDING_HISTORY":           "100",
	}
	if cfg.MailboxMembers > 0 {
		env["RSC_MAILBOX_ENABLED"] = "true" // no member auth: every member speaks for "-"
	}
	var memberRedis harness.MemberOptions // how members reach Redis
	if cfg.Redis == "sentinel" {
		// A decision is confirmed once a replica has it, so the replica
		// the Sentinels promote has every one (docs/RELIABILITY.md).
		c.sentinels = redistest.StartSentinels(t)
		redisAddr = c.sentinels.Primary()
		for k, v := range harness.SentinelEnv(redistest.SentinelMaster, c.sentinels.SentinelAddrs()) {
			env[k] = v
		}
		env["RSC_STORE_WAIT_REPLICAS"] = "1"
		memberRedis.RedisMasterName, memberRedis.RedisSentinels = redistest.SentinelMaster, c.sentinels.SentinelAddrs()
		c.rdb = redis.NewFailoverClient(&redis.FailoverOptions{MasterName: redistest.SentinelMaster, SentinelAddrs: c.sentinels.SentinelAddrs()})
	} else {
		c.redis = redistest.StartWithOptions(t, redistest.Options{Persist: true})
		redisAddr = c.redis.Addr()
		memberRedis.RedisAddr = redisAddr
		c.rdb = c.redis.Client()
	}
	t.Cleanup(func() { _ = c.rdb.Close() })
	// Several coordinators form one automanaged actor host cluster on
	// loopback (ports kept across restarts); the schedule, members, producer
	// and monitor take every URL.
	if cfg.Coordinators > 1 {
		c.hc = harness.StartCluster(t, harness.ClusterOptions{Nodes: cfg.Coordinators, RedisAddr: redisAddr, Env: env})
		c.coords = c.hc.Nodes
	} else {
		c.coords = []*harness.Coordinator{harness.StartCoordinator(t, harness.Options{RedisAddr: redisAddr, Env: env})}
	}
	for _, co := range c.coords {
		c.nodes = append(c.nodes, &node{logFrom: len(co.Logs())})
		c.proxies = append(c.proxies, harness.StartSlowProxy(t, co.URL()))
	}
	harness.NewClient(c.coords[0].URL()).CreateStream(t, cfg.Prefix, cfg.Shards)
	for i := 0; i < cfg.Members; i++ {
		id := fmt.Sprintf("m%d", i)
		urls := c.coordinatorURLs()
		if i < cfg.Proxied {
			urls = c.proxyURLs() // heartbeats of these members go through the slow proxies
		}
		transport := "http"
		if i >= cfg.Members-cfg.MailboxMembers {
			transport = "redis" // the last MailboxMembers members use the mailbox
		}
		c.ids = append(c.ids, id)
		o := memberRedis
		o.ID, o.CoordinatorURLs, o.Stream, o.Group, o.Work, o.Transport = id, urls, cfg.Prefix, cfg.Group, cfg.Work, transport
		o.ExactlyOnce = cfg.ExactlyOnce
		if cfg.Static {
			o.InstanceID = id
		}
		c.opts[id] = o
		c.startMember(id)
	}
	return c
}

func (c *cluster) startMember(id string) {
	m := harness.StartMember(c.t, c.rec, c.opts[id])
	c.mu.Lock()
	c.members[id] = m
	c.mu.Unlock()
}

func (c *cluster) member(id string) *harness.MemberProc {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.members[id]
}

// startProducer publishes keyed entries carrying sequence numbers at about
// rate per second (test/seqprod).
func (c *cluster) startProducer(rate int) {
	o := harness.ProducerOptions{CoordinatorURLs: c.coordinatorURLs(),
		Stream: c.cfg.Prefix, Group: c.cfg.Group, Rate: rate, RoutingTTL: producerRoutingTTL,
		Key: func(seq int64) string { return "customer-" + strconv.FormatInt(seq%997, 10) }}
	if c.cfg.ExactlyOnce {
		o.ProducerID = "chaos" // each sequence number once in the input
	}
	if c.sentinels != nil {
		// A publish is confirmed once a replica has the entry: the
		// promoted replica has every confirmed entry.
		o.RedisMasterName, o.RedisSentinels, o.WaitReplicas = redistest.SentinelMaster, c.sentinels.SentinelAddrs(), 1
	} else {
		o.RedisAddr = c.redis.Addr()
	}
	c.prod = harness.StartProducer(c.t, o)
}

func (c *cluster) stopProducer() {
	if c.prod != nil {
		c.prod.Stop()
	}
}

// producerRoutingTTL is the producer's routing cache lifetime, below the
// coordinators' resharding.routing-grace (2 s).
const producerRoutingTTL = time.Second

// redisBacklog sums, over every live shard (c.shards), the entries of the
// group still pending (delivered, not acknowledged) and not yet delivered
// (lag). The lag is counted from the ids (the entries after the group's
// last-delivered-id), not taken from XINFO GROUPS: Redis 7.0 does not
// replicate a group's entries-read counter, so after a failover its lag
// stays too high for good.
func (c *cluster) redisBacklog(ctx context.Context) (pending, lag, entries int64, err error) {
	rdb := c.rdb
	for s := 0; s < c.shards; s++ {
		key := c.cfg.Prefix + ":" + strconv.Itoa(s)
		groups, e := rdb.XInfoGroups(ctx, key).Result()
		if e != nil {
			return 0, 0, 0, e
		}
		for _, g := range groups {
			if g.Name != c.cfg.Group {
				continue
			}
			pending += g.Pending
			after, e := rdb.XRange(ctx, key, "("+g.LastDeliveredID, "+").Result()
			if e != nil {
				return 0, 0, 0, e
			}
			lag += int64(len(after))
		}
		n, e := rdb.XLen(ctx, key).Result()
		if e != nil {
			return 0, 0, 0, e
		}
		entries += n
	}
	return pending, lag, entries, nil
}
