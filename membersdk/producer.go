package membersdk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/coordclient"
	"github.com/redisstream/coordinator/membersdk/internal/routing"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// DefaultRoutingTTL is how long a producer trusts its cached routing.
const DefaultRoutingTTL = 30 * time.Second

// ErrNoShards is returned by Publish when the stream has no active shard
// (it was scaled to 0).
var ErrNoShards = errors.New("membersdk: the stream has no active shard")

// ErrStreamMissing is returned by Publish when the routed shard stream does
// not exist even after a routing refresh (XADD NOMKSTREAM refused twice).
var ErrStreamMissing = errors.New("membersdk: shard stream does not exist")

// ProducerConfig configures a Producer.
type ProducerConfig struct {
	CoordinatorURLs []string
	StreamPrefix    string
	// ConsumerGroup names the group whose routing endpoint is asked (every
	// group of a stream sees the same routing).
	ConsumerGroup  string
	Redis          redis.UniversalClient
	HTTPClient     *http.Client
	Auth           Auth
	RequestTimeout time.Duration // per routing request and URL (default 5s)
	// RoutingTTL bounds the age of the cached routing (default 30s). The
	// coordinator keeps removed shards readable at least this long after a
	// scale-in, so do not raise it above the coordinator's routing grace.
	RoutingTTL time.Duration
	// MaxLen, if > 0, trims each shard approximately (XADD MAXLEN ~ n).
	MaxLen int64
	// WaitReplicas > 0: Publish returns only once that many replicas of
	// the shard's primary have the entry (WAIT right after the XADD, on the
	// same connection: one round trip), so that a Redis failover cannot
	// lose an entry Publish confirmed. An entry written but acknowledged by
	// fewer replicas within WaitTimeout (default 1 s) is reported as
	// ErrNotReplicated, with its id: it is on the primary, and a failover
	// may or may not keep it.
	WaitReplicas int
	WaitTimeout  time.Duration
	// ProducerID makes the producer idempotent (docs/MEMBER-SDK.md,
	// "Idempotent producer"): PublishOnce writes an entry at most once per
	// idempotent id within DedupWindow, and Publish gives each entry an id
	// of its own so that its retries never write twice. One live producer
	// per id and stream: a second one is refused (ErrProducerIDInUse) until
	// the first stops (Close) or its claim expires (ProducerClaimTTL).
	ProducerID string
	// DedupWindow is how long an idempotent id is remembered (default 1h,
	// at least 1s): a retry later than that may write the entry again.
	DedupWindow time.Duration
	// ProducerClaimTTL is how long the ProducerID stays claimed after the
	// producer's last publish (default 10s): how long a restarted process
	// with the same id waits for it.
	ProducerClaimTTL time.Duration
	// SharedProducerID lets several processes publish under ProducerID at
	// once, without a claim: for a consume → produce pipeline whose members
	// all publish with idempotent ids derived from their input entries
	// (Message.SourceID), so that an entry redelivered to another member
	// after a crash writes nothing new. Safe only when the ids of different
	// processes never collide; use one ProducerID per pipeline (per
	// consumer group).
	SharedProducerID bool
	Logger           *slog.Logger
}

// ErrNotReplicated: the entry was written on the primary, but fewer than
// ProducerConfig.WaitReplicas replicas acknowledged it in time.
var ErrNotReplicated = errors.New("membersdk: entry not acknowledged by enough replicas")

// Producer publishes entries to the shard SPEC §6 routes their partition key
// to. It is safe for concurrent use.
type Producer struct {
	cfg   ProducerConfig
	coord *coordclient.Client
	log   *slog.Logger
	path  string
	cache *routing.Cache // internal tests replace cache.Now right after NewProducer
	idem  *idempotence   // nil unless ProducerID is set
}

// NewProducer validates cfg and returns a producer. Routing is fetched on
// the first Publish.
func NewProducer(cfg ProducerConfig) (*Producer, error) {
	if err := protocol.ValidateName("streamPrefix", cfg.StreamPrefix); err != nil {
		return nil, fmt.Errorf("membersdk: %w", err)
	}
	if err := protocol.ValidateName("consumerGroup", cfg.ConsumerGroup); err != nil {
		return nil, fmt.Errorf("membersdk: %w", err)
	}
	if cfg.Redis == nil {
		return nil, errors.New("membersdk: Redis client is required")
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.RoutingTTL <= 0 {
		cfg.RoutingTTL = DefaultRoutingTTL
	}
	if cfg.WaitReplicas < 0 {
		return nil, fmt.Errorf("membersdk: ProducerConfig.WaitReplicas = %d: use 0 (do not wait) or the number of replicas to wait for", cfg.WaitReplicas)
	}
	if cfg.WaitTimeout <= 0 {
		cfg.WaitTimeout = time.Second
	}
	if cfg.ProducerID != "" {
		if cfg.DedupWindow == 0 {
			cfg.DedupWindow = DefaultDedupWindow
		}
		if cfg.DedupWindow < time.Second {
			return nil, fmt.Errorf("membersdk: ProducerConfig.DedupWindow = %s: use at least 1s (0: the default, %s)", cfg.DedupWindow, DefaultDedupWindow)
		}
		if cfg.ProducerClaimTTL == 0 {
			cfg.ProducerClaimTTL = DefaultProducerClaimTTL
		}
		if cfg.ProducerClaimTTL < 100*time.Millisecond {
			return nil, fmt.Errorf("membersdk: ProducerConfig.ProducerClaimTTL = %s: use at least 100ms (0: the default, %s)", cfg.ProducerClaimTTL, DefaultProducerClaimTTL)
		}
	} else if cfg.DedupWindow != 0 || cfg.ProducerClaimTTL != 0 || cfg.SharedProducerID {
		return nil, errors.New("membersdk: ProducerConfig.DedupWindow, ProducerClaimTTL and SharedProducerID need a ProducerID (set one to make the producer idempotent)")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cc, err := newCoordClient(cfg.CoordinatorURLs, cfg.HTTPClient, cfg.Auth, cfg.RequestTimeout)
	if err != nil {
		return nil, err
	}
	p := &Producer{
		cfg:   cfg,
		coord: cc,
		log:   cfg.Logger.With("stream", cfg.StreamPrefix),
		path:  coordclient.GroupPath(cfg.StreamPrefix, cfg.ConsumerGroup) + "/producer-routing",
	}
	p.cache = routing.New(cfg.RoutingTTL, p.fetch, p.log)
	if cfg.ProducerID != "" {
		p.idem = newIdempotence()
	}
	cc.OnFailover = func(from, to string) { p.log.Warn("coordinator failover", "from", from, "to", to) }
	return p, nil
}

// Invalidate drops the cached routing; the next Publish fetches it again.
func (p *Producer) Invalidate() { p.cache.Invalidate() }

// ObserveMetadataVersion invalidates the routing if v is newer than the
// cached metadataVersion (feed it versions seen elsewhere, e.g. by a
// consumer's heartbeats).
func (p *Producer) ObserveMetadataVersion(v int64) { p.cache.ObserveMetadataVersion(v) }

// Routing returns the cached routing, fetching it when missing, stale or
// older than RoutingTTL.
func (p *Producer) Routing(ctx context.Context) (protocol.ProducerRouting, error) {
	c, err := p.cache.Get(ctx)
	if err != nil {
		return protocol.ProducerRouting{}, err
	}
	return c.R, nil
}

// fetch asks the coordinator for the producer routing (routing.Fetch).
func (p *Producer) fetch(ctx context.Context) (protocol.ProducerRouting, error) {
	var r protocol.ProducerRouting
	_, err := p.coord.Do(ctx, http.MethodGet, p.path, nil, &r)
	return r, err
}

// ShardFor returns the shard index and stream key partitionKey routes to.
func (p *Producer) ShardFor(ctx context.Context, partitionKey string) (int, string, error) {
	c, err := p.cache.Get(ctx)
	if err != nil {
		return 0, "", err
	}
	return p.locate(&c.R, partitionKey)
}

func (p *Producer) locate(r *protocol.ProducerRouting, partitionKey string) (int, string, error) {
	if r.ShardCount == 0 {
		return 0, "", ErrNoShards
	}
	shard := int(protocol.Route(partitionKey, uint32(r.ShardCount)))
	if shard < len(r.Shards) && r.Shards[shard].ShardIndex == shard && r.Shards[shard].StreamKey != "" {
		return shard, r.Shards[shard].StreamKey, nil
	}
	for _, s := range r.Shards {
		if s.ShardIndex == shard && s.StreamKey != "" {
			return shard, s.StreamKey, nil
		}
	}
	return shard, protocol.StreamKey(p.cfg.StreamPrefix, shard), nil
}

// Publish appends values to the shard partitionKey routes to, with
// XADD NOMKSTREAM, and returns the entry id. If the shard stream does not
// exist (a stale routing after a scale-in), the routing is fetched again and
// the publish retried once.
func (p *Producer) Publish(ctx context.Context, partitionKey string, values map[string]any) (string, error) {
	r, err := p.PublishResult(ctx, partitionKey, values)
	return r.ID, err
}

// Published describes one accepted publish.
type Published struct {
	// ID is the entry id Redis assigned.
	ID string
	// Shard and StreamKey are where the entry went.
	Shard     int
	StreamKey string
	// MetadataVersion is the routing version the shard was chosen with.
	MetadataVersion int64
	// Refreshed: the first attempt found its shard stream retired (a routing
	// older than a scale-in) and the entry went where the refreshed routing
	// points.
	Refreshed bool
	// Duplicate (idempotent producers): the idempotent id had been
	// published already; ID is that entry's and nothing was written.
	Duplicate bool
}

// PublishResult is Publish, telling where the entry went and with which
// routing version: a caller that needs per-key order across a reshard can
// tell that two entries of one key were routed with different versions
// (docs/PROTOCOL.md, "Resharding and order").
func (p *Producer) PublishResult(ctx context.Context, partitionKey string, values map[string]any) (Published, error) {
	if p.idem != nil {
		return p.publishOnce(ctx, partitionKey, p.idem.newID(), values, false)
	}
	for attempt := 0; ; attempt++ {
		c, err := p.cache.Get(ctx)
		if err != nil {
			return Published{}, err
		}
		shard, key, err := p.locate(&c.R, partitionKey)
		if err != nil {
			return Published{}, err
		}
		args := &redis.XAddArgs{Stream: key, NoMkStream: true, Values: values}
		if p.cfg.MaxLen > 0 {
			args.MaxLen, args.Approx = p.cfg.MaxLen, true
		}
		id, err := p.xadd(ctx, args)
		if err == nil || errors.Is(err, ErrNotReplicated) {
			return Published{ID: id, Shard: shard, StreamKey: key, MetadataVersion: c.R.MetadataVersion, Refreshed: attempt > 0}, err
		}
		if !errors.Is(err, redis.Nil) {
			return Published{}, fmt.Errorf("membersdk: XADD %s: %w", key, err)
		}
		if attempt > 0 {
			return Published{}, fmt.Errorf("%w: %s (after a routing refresh)", ErrStreamMissing, key)
		}
		p.log.Info("shard stream missing (retired by a scale-in?); refreshing routing and retrying", "key", key, "metadataVersion", c.R.MetadataVersion)
		p.Invalidate()
	}
}

// xadd runs the XADD, and with WaitReplicas a WAIT on the same connection
// (on Redis Cluster: the connection to the shard's primary).
func (p *Producer) xadd(ctx context.Context, args *redis.XAddArgs) (string, error) {
	if p.cfg.WaitReplicas <= 0 {
		return p.cfg.Redis.XAdd(ctx, args).Result()
	}
	var add *redis.StringCmd
	wait, err := p.waited(ctx, args.Stream, func(pl redis.Pipeliner) { add = pl.XAdd(ctx, args) })
	if wait == nil {
		return "", err
	}
	id, addErr := add.Result()
	if addErr != nil {
		return "", addErr
	}
	if err != nil && wait.Err() == nil { // the pipeline failed elsewhere than at WAIT
		return "", err
	}
	return id, p.enoughReplicas(id, args.Stream, wait)
}

// waited sends the command queue queues and then WAIT for WaitReplicas
// replicas in one round trip, on the connection to key's primary (on Redis
// Cluster: that node's). It returns WAIT's command (nil when nothing was
// sent) and the pipeline's error.
func (p *Producer) waited(ctx context.Context, key string, queue func(redis.Pipeliner)) (*redis.Cmd, error) {
	var c redis.Cmdable = p.cfg.Redis
	if cc, ok := p.cfg.Redis.(*redis.ClusterClient); ok {
		node, err := cc.MasterForKey(ctx, key)
		if err != nil {
			return nil, err
		}
		c = node
	}
	var wait *redis.Cmd
	_, err := c.Pipelined(ctx, func(pl redis.Pipeliner) error {
		queue(pl)
		wait = pl.Do(ctx, "WAIT", p.cfg.WaitReplicas, p.cfg.WaitTimeout.Milliseconds())
		return nil
	})
	return wait, err
}

// enoughReplicas is ErrNotReplicated, naming entry id of key, when WAIT
// counted fewer than WaitReplicas replicas in time.
func (p *Producer) enoughReplicas(id, key string, wait *redis.Cmd) error {
	if n, werr := wait.Int64(); werr != nil || n < int64(p.cfg.WaitReplicas) {
		return fmt.Errorf("%w: %s in %s: %d of %d replicas within %s (%v)", ErrNotReplicated, id, key, n, p.cfg.WaitReplicas, p.cfg.WaitTimeout, werr)
	}
	return nil
}
