package shardworker

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/internal/shard"
)

// Host is what a worker needs of its consumer: the configuration it reads
// with, the consumer's clock, logger, events and handler, and the state all
// workers of a member share. The consumer builds one when Run starts.
type Host struct {
	Redis               redis.UniversalClient
	Group, Member       string
	StreamPrefix        string
	BatchSize           int64
	BlockTimeout        time.Duration
	PerShardConcurrency int
	MaxDeliveries       int
	RetryBackoff        time.Duration
	MaxRetryBackoff     time.Duration
	DeadLetterStream    string // "": the shard's own (ShardDeadLetterKey)
	// Tx: every delivery carries a transaction (Message.Writes) whose writes
	// commit with its acknowledgement (commit.go), bounded by TxLimits; on
	// Redis Cluster (Cluster) only keys of the shard's slot qualify.
	Tx       bool
	TxLimits fence.TxLimits
	Cluster  bool

	Log *slog.Logger
	Now func() time.Time
	// Emit reports an event; Events tells whether anyone listens (so that
	// per-entry events are not built for nobody).
	Emit   func(Event)
	Events bool
	// Handle runs the application's handler on one entry.
	Handle func(ctx context.Context, msg Message) error

	Gate        *shard.Gate        // the member's self-fence gate
	Unconfirmed *shard.Unconfirmed // acknowledgements of unknown outcome, per shard
	Sem         chan struct{}      // Concurrency slots shared by every worker
	Running     *atomic.Int64      // handlers running now (slots held)
	Epoch       *atomic.Int64      // the member epoch
	FencedOps   *atomic.Int64      // writes the shard fence refused
	NamesGone   *atomic.Int64      // dead consumer names deleted
	Exits       chan<- *Worker     // a worker reports its exit here, once
	MaxAckDelay time.Duration      // see batch
	// BeforeWrite, when set (tests), runs right after the in-process
	// ownership check and before the write is sent.
	BeforeWrite func(op string, shard int)
}

// Message is one stream entry handed to the handler, as the root package's
// Message; Writes is its transaction (Host.Tx), nil otherwise.
type Message struct {
	StreamKey     string
	Shard         int
	ID            string
	Values        map[string]any
	Epoch         int64
	DeliveryCount int64
	FencingToken  int64
	Writes        *fence.Writes
}

// Event is what a worker reports; the consumer fills in time, member and
// epoch when they are zero, as for its own events.
type Event struct {
	Type    string
	Time    time.Time
	Epoch   int64
	Shard   int
	EntryID string
	Err     error
}

// Event types a worker reports: the values of the root package's EventType
// constants of the same names.
const (
	EventShardStarted = "SHARD_STARTED"
	EventAcked        = "ACKED"
	EventAckRefused   = "ACK_REFUSED"
	EventAckFenced    = "ACK_FENCED"
	EventFenceNotHeld = "FENCE_NOT_HELD"
	EventDeadLettered = "DEAD_LETTERED"
)

// Fields added to a dead-lettered entry: the values of the root package's
// DLQField constants of the same names.
const (
	DLQFieldOriginStream  = "rsc-origin-stream"
	DLQFieldOriginID      = "rsc-origin-id"
	DLQFieldError         = "rsc-error"
	DLQFieldConsumerGroup = "rsc-consumer-group"
	DLQFieldMemberID      = "rsc-member-id"
	DLQFieldDeliveries    = "rsc-delivery-count"
)

// ShardDeadLetterKey is the default dead-letter stream of a shard stream
// (the root package's ShardDeadLetterKey).
func ShardDeadLetterKey(streamKey string) string { return "{" + streamKey + "}:dlq" }
