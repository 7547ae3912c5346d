package membersdk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Auth is how the SDK authenticates to the coordinator. Set at most one of
// Basic (Username/Password), BearerToken or TokenFunc.
type Auth struct {
	Username string
	Password string
	// BearerToken is sent as "Authorization: Bearer <token>".
	BearerToken string
	// TokenFunc, when set, is asked for a bearer token before every request
	// (let it cache and refresh the token from POST /coord/v1/auth/login).
	TokenFunc func(ctx context.Context) (string, error)
}

// Defaults used by the consumer.
const (
	DefaultConcurrency        = 4
	DefaultBatchSize          = 16
	DefaultBlockTimeout       = time.Second
	DefaultMaxDeliveries      = 5
	DefaultRetryBackoff       = 100 * time.Millisecond
	DefaultMaxRetryBackoff    = 5 * time.Second
	DefaultRequestTimeout     = 5 * time.Second
	DefaultRetryInterval      = time.Second
	DefaultHeartbeatInterval  = 3 * time.Second  // until the coordinator says otherwise
	DefaultRebalanceTimeout   = 60 * time.Second // until the coordinator says otherwise
	DefaultMemberLeaseTTL     = 15 * time.Second // until the coordinator says otherwise
	MinSelfFenceMargin        = time.Second
	selfFenceMarginPercentage = 20
)

// ConsumerConfig configures a Consumer. Zero values take the defaults noted.
type ConsumerConfig struct {
	// CoordinatorURLs are base URLs such as "http://coord-0:8080". Heartbeats
	// go to the first that works and stay there; on a transport error or a
	// non-2xx answer the next one is tried, in order. Required with
	// TransportHTTP; not used with TransportRedis.
	CoordinatorURLs []string
	// Transport is how heartbeats reach the coordinator: TransportHTTP
	// ("http", the default) or TransportRedis ("redis": the Redis mailbox,
	// through Redis, the data-plane client; docs/PROTOCOL.md, "Redis
	// mailbox"). Both carry the same protocol-v1 bodies and behave the same
	// (statuses, retries, self-fencing, leave); only the mailbox can tell a
	// member to heartbeat at once when shards it may get are freed.
	Transport string
	// MailboxPrincipal (TransportRedis, required) is the coordinator auth
	// user this member speaks for (auth.users[].username, role MEMBER or
	// ADMIN), or "-" when the coordinator runs without member
	// authentication. Over the mailbox the Redis user is the credential: the
	// coordinator trusts that whoever could write a principal's request
	// stream speaks for it, so give each principal a Redis ACL user
	// limited to its own mailbox keys (docs/PROTOCOL.md).
	MailboxPrincipal string
	// MailboxKeyPrefix (TransportRedis) is the coordinator's
	// store.key-prefix (default "rsc").
	MailboxKeyPrefix string
	StreamPrefix     string
	ConsumerGroup    string
	// MemberID defaults to DefaultMemberID(MemberIndex). It is also the Redis
	// consumer name.
	MemberID    string
	MemberIndex int
	// MemberName is a free-text label shown by monitoring (e.g. the app name).
	MemberName string
	// InstanceID makes the member static (optional; e.g. the StatefulSet pod
	// name, stable across restarts): Close sends a temporary leave
	// (memberEpoch -2) and the coordinator keeps this member's shards for the
	// next process started with the same InstanceID, for
	// coordination.static-session-timeout. Each running process needs its own.
	InstanceID string
	// FullLeaveOnClose makes Close of a static member (InstanceID set) leave
	// for good (memberEpoch -1: its shards move to the others at once), e.g.
	// when scaling down.
	FullLeaveOnClose bool
	// Concurrency bounds the handlers running at once across all shards of
	// this member (default 4); it is reported as runtimeConsumerCapacity.
	Concurrency int
	// PerShardConcurrency bounds the handlers running at once on one shard
	// (default 1, which keeps per-shard order: an entry's handler starts only
	// after the previous entry's handler succeeded or the entry was
	// dead-lettered; the successful entries of a read are acknowledged
	// together with one XACK).
	PerShardConcurrency int
	// Redis is the data-plane client (required). A cluster client works: each
	// shard key hashes to its own slot.
	Redis redis.UniversalClient
	// HTTPClient defaults to a client without timeout (RequestTimeout bounds
	// each request).
	HTTPClient *http.Client
	// Auth authenticates HTTP requests. Not used by TransportRedis, where the
	// Redis client's user is the credential.
	Auth Auth
	// RequestTimeout bounds one heartbeat request to one URL (default 5s); a
	// heartbeat round over all URLs is also bounded by the heartbeat interval.
	// Over the mailbox it bounds the wait for the reply the same way.
	RequestTimeout time.Duration
	// RetryInterval is the first wait before retrying after RETRY, a refused
	// join or a failed heartbeat round (default 1s, never more than the
	// heartbeat interval). Further retries double it up to the heartbeat
	// interval; every wait is jittered to ½–1½ of its nominal value (capped
	// at the heartbeat interval) so members do not retry in lock-step.
	RetryInterval time.Duration
	// Transactions gives every Message a Tx: Redis writes that commit
	// together with the entry's acknowledgement, while the shard's fence
	// names this member (docs/MEMBER-SDK.md, "Exactly-once processing").
	Transactions TxConfig
	// BatchSize is XREADGROUP/XAUTOCLAIM COUNT (default 16).
	BatchSize int64
	// BlockTimeout is XREADGROUP BLOCK (default 1s). A revoked, fenced or
	// stopping shard's reader is woken at once with CLIENT UNBLOCK when Redis
	// is a *redis.Client; with other clients (Cluster) it stops after at most
	// BlockTimeout, so keep it short.
	BlockTimeout time.Duration
	// SelfFenceMargin: the member stops reading and acking when no
	// successful heartbeat was sent for (memberLeaseTtl − SelfFenceMargin).
	// Default: 20% of the lease TTL, at least 1s.
	SelfFenceMargin time.Duration
	// MaxDeliveries is the number of deliveries (Redis delivery count plus
	// local retries) after which a failing entry goes to the dead-letter
	// stream and is acknowledged (default 5).
	MaxDeliveries int
	// DeadLetterStream, when set, is the one dead-letter stream of every
	// shard (e.g. DeadLetterKey(StreamPrefix) = "orders:dlq"). Default "":
	// each shard has its own, ShardDeadLetterKey(shard stream key) =
	// "{orders:3}:dlq", in the shard's Redis Cluster slot, so that the move
	// (XADD + fenced XACK) is one atomic script on Redis Cluster too. A set
	// stream in another slot is written, on Redis Cluster, by a plain XADD
	// before the fenced XACK: not atomic (docs/MEMBER-SDK.md, "Dead letters").
	DeadLetterStream string
	// RetryBackoff is the first wait before re-running a failed handler; it
	// doubles up to MaxRetryBackoff (defaults 100ms and 5s). Each wait is
	// jittered to ½–1½ of its nominal value, capped at MaxRetryBackoff.
	RetryBackoff    time.Duration
	MaxRetryBackoff time.Duration
	// Logger defaults to a logger that discards everything.
	Logger *slog.Logger
	// OnEvent, when set, is called synchronously for every Event, from
	// several goroutines: it must be quick and safe for concurrent use.
	OnEvent func(Event)
	// OnShardsAssigned, when set, is called with the shards (sorted) whose
	// readers are about to start, before any handler call for them: set up
	// per-shard state here. OnShardsRevoked, when set, is called with the
	// shards whose readers have stopped — revoked by the coordinator,
	// fenced, self-fenced, or given up by Run returning — once no read can
	// deliver them entries and no XACK of them can reach Redis: flush or
	// drop per-shard state here. Their handlers have returned, unless one
	// ignored its context past the drain deadline (its work is abandoned
	// and its acknowledgement refused). Every assignment of a shard is
	// followed by exactly one revocation of it before the next assignment,
	// and by the time Run returns every assigned shard was revoked. Both are
	// called from Run's goroutine, one at a time, and delay its heartbeats:
	// keep them short. ctx carries Run's values but is not cancelled when
	// Run's is (a revocation while leaving can still write). See
	// docs/MEMBER-SDK.md, "Shard callbacks".
	OnShardsAssigned func(ctx context.Context, shards []int)
	OnShardsRevoked  func(ctx context.Context, shards []int)
}

func (c *ConsumerConfig) setDefaults() error {
	if err := c.checkTransport(); err != nil {
		return err
	}
	if err := protocol.ValidateName("streamPrefix", c.StreamPrefix); err != nil {
		return fmt.Errorf("membersdk: %w", err)
	}
	if err := protocol.ValidateName("consumerGroup", c.ConsumerGroup); err != nil {
		return fmt.Errorf("membersdk: %w", err)
	}
	if c.MemberID == "" {
		c.MemberID = DefaultMemberID(c.MemberIndex)
	}
	if err := protocol.ValidateMemberID(c.MemberID); err != nil {
		return fmt.Errorf("membersdk: %w", err)
	}
	if err := protocol.ValidateInstanceID(c.InstanceID); err != nil {
		return fmt.Errorf("membersdk: ConsumerConfig.InstanceID: %w", err)
	}
	if c.Redis == nil {
		return errors.New("membersdk: Redis client is required")
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.PerShardConcurrency <= 0 {
		c.PerShardConcurrency = 1
	}
	if c.PerShardConcurrency > c.Concurrency {
		c.PerShardConcurrency = c.Concurrency
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.RetryInterval <= 0 {
		c.RetryInterval = DefaultRetryInterval
	}
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.BlockTimeout <= 0 {
		c.BlockTimeout = DefaultBlockTimeout
	}
	if c.SelfFenceMargin < 0 {
		return fmt.Errorf("membersdk: SelfFenceMargin %s must not be negative", c.SelfFenceMargin)
	}
	if c.MaxDeliveries <= 0 {
		c.MaxDeliveries = DefaultMaxDeliveries
	}
	if err := c.Transactions.validate(); err != nil {
		return err
	}
	if c.RetryBackoff <= 0 {
		c.RetryBackoff = DefaultRetryBackoff
	}
	if c.MaxRetryBackoff <= 0 {
		c.MaxRetryBackoff = DefaultMaxRetryBackoff
	}
	if c.MaxRetryBackoff < c.RetryBackoff {
		c.MaxRetryBackoff = c.RetryBackoff
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return nil
}

// selfFenceAfter is how long the member may go without a successful
// heartbeat before it stops reading and acking.
func (c *ConsumerConfig) selfFenceAfter(leaseTTL time.Duration) time.Duration {
	margin := c.SelfFenceMargin
	if margin == 0 {
		margin = max(leaseTTL*selfFenceMarginPercentage/100, MinSelfFenceMargin)
	}
	after := leaseTTL - margin
	if after <= 0 {
		after = leaseTTL / 2
	}
	return after
}

// checkTransport validates Transport and what it needs, and fills in its
// defaults.
func (c *ConsumerConfig) checkTransport() error {
	switch c.Transport {
	case "", TransportHTTP:
		c.Transport = TransportHTTP
		if len(c.CoordinatorURLs) == 0 {
			return errors.New("membersdk: CoordinatorURLs must name at least one coordinator (or set Transport to \"redis\" to heartbeat through the Redis mailbox)")
		}
	case TransportRedis:
		if c.MailboxPrincipal == "" {
			return fmt.Errorf("membersdk: MailboxPrincipal is required with Transport %q: set it to the coordinator auth user this member speaks for, or %q when the coordinator runs without member authentication", TransportRedis, protocol.MailboxNoAuthPrincipal)
		}
		if c.MailboxKeyPrefix == "" {
			c.MailboxKeyPrefix = protocol.DefaultMailboxKeyPrefix
		}
		if strings.ContainsAny(c.MailboxKeyPrefix, "{}") {
			return fmt.Errorf("membersdk: MailboxKeyPrefix %q must not contain '{' or '}': set it to the coordinator's store.key-prefix (default %q)", c.MailboxKeyPrefix, protocol.DefaultMailboxKeyPrefix)
		}
	default:
		return fmt.Errorf("membersdk: Transport %q is not %q or %q", c.Transport, TransportHTTP, TransportRedis)
	}
	return nil
}
