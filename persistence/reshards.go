package persistence

import (
	"context"
	"time"
)

// Reshards keeps what the resharding drivers of the coordinator nodes share:
// which streams have a migration in progress, and which node drives each
// one. A driver lease names one node per stream; the node renews it while
// it works and a node that finds it expired takes it over, so a migration
// survives the loss of its driver and is driven by one node at a time.
type Reshards interface {
	// MarkResharding records that streamPrefix has a migration in progress.
	MarkResharding(ctx context.Context, streamPrefix string) error
	// UnmarkResharding forgets it (the migration finished).
	UnmarkResharding(ctx context.Context, streamPrefix string) error
	// ReshardingStreams lists the streams marked, sorted.
	ReshardingStreams(ctx context.Context) ([]string, error)
	// AcquireDriver takes the driver lease of streamPrefix for owner for ttl,
	// or renews it if owner holds it; false (no error) if another owner
	// holds an unexpired lease. The ttl is measured by the store.
	AcquireDriver(ctx context.Context, streamPrefix, owner string, ttl time.Duration) (bool, error)
	// ReleaseDriver gives the lease up if owner holds it.
	ReleaseDriver(ctx context.Context, streamPrefix, owner string) error
}

// Retirement is the outcome of one attempt to retire a shard stream.
type Retirement struct {
	// Retired: the stream key no longer exists (renamed now, or earlier).
	Retired bool
	// Missing: neither the stream key nor the retired key existed (nothing to
	// keep; e.g. a shard whose provisioning never happened).
	Missing bool
	// Blocked lists the consumer groups that still have entries pending or
	// undelivered on the shard (when not Retired).
	Blocked []GroupBacklog
}

// GroupBacklog is one consumer group's unfinished work on a shard.
type GroupBacklog struct {
	Group   string
	Pending int64
	Lag     int64 // -1: Redis reports no lag and the ids cannot tell either
}

// Retirer retires drained shard streams and manages the fences around a
// shard's life (implemented by the data-plane Provisioner).
type Retirer interface {
	// RetireShard renames shard stream {prefix}:{shard} to retiredKey (same
	// Cluster slot) and sets its time to live to retention, in one atomic
	// step, only if every consumer group on the stream has pending 0 and lag
	// 0 (a group whose lag Redis cannot report counts as drained only when
	// its last-delivered-id is at the stream's last-generated-id). So an
	// entry written before the rename is never left unconsumed, and a
	// producer writing after it with XADD … NOMKSTREAM is refused.
	RetireShard(ctx context.Context, streamPrefix string, shard int, retiredKey string, retention time.Duration) (Retirement, error)
	// SeedFences creates the fence of each shard for group with token base
	// and no owner, where no fence exists (a shard index created again after
	// an earlier incarnation was retired: tokens keep increasing).
	SeedFences(ctx context.Context, streamPrefix, group string, shards []int, base int64) error
	// DeleteFences deletes the fences of shards for group (retired shards).
	DeleteFences(ctx context.Context, streamPrefix, group string, shards []int) error
}
