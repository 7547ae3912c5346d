package membersdk

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/internal/shardworker"
)

// isCluster reports whether rc talks to a Redis Cluster.
func isCluster(rc redis.UniversalClient) bool {
	_, ok := rc.(*redis.ClusterClient)
	return ok
}

// workerHost is what the shard workers (internal/shardworker) need of the
// consumer. Run builds it once, after tests had their chance to set
// beforeWrite or maxAckDelay.
func (c *Consumer) workerHost() *shardworker.Host {
	return &shardworker.Host{
		Redis: c.cfg.Redis, Group: c.cfg.ConsumerGroup, Member: c.cfg.MemberID,
		StreamPrefix: c.cfg.StreamPrefix, BatchSize: c.cfg.BatchSize, BlockTimeout: c.cfg.BlockTimeout,
		PerShardConcurrency: c.cfg.PerShardConcurrency, MaxDeliveries: c.cfg.MaxDeliveries,
		RetryBackoff: c.cfg.RetryBackoff, MaxRetryBackoff: c.cfg.MaxRetryBackoff,
		DeadLetterStream: c.cfg.DeadLetterStream,

		Log:    c.log,
		Now:    c.now,
		Emit:   c.emitWorkerEvent,
		Events: c.cfg.OnEvent != nil,
		Handle: func(ctx context.Context, m shardworker.Message) error {
			msg := Message{StreamKey: m.StreamKey, Shard: m.Shard, ID: m.ID, Values: m.Values, Epoch: m.Epoch,
				DeliveryCount: m.DeliveryCount, FencingToken: m.FencingToken}
			if m.Writes != nil {
				msg.Tx = &Tx{w: m.Writes}
			}
			return c.handler(ctx, msg)
		},
		Tx: c.cfg.Transactions.Enabled, TxLimits: fence.TxLimits{MaxWrites: c.cfg.Transactions.MaxWrites, MaxBytes: c.cfg.Transactions.MaxBytes},
		Cluster: isCluster(c.cfg.Redis),

		Gate: &c.gate, Unconfirmed: &c.unconfirmed, Sem: c.sem, Running: &c.running,
		Epoch: &c.epoch, FencedOps: &c.fencedOps, NamesGone: &c.namesGone,
		Exits: c.exits, MaxAckDelay: c.maxAckDelay, BeforeWrite: c.beforeWrite,
	}
}

// emitWorkerEvent reports a worker's event as the consumer's own.
func (c *Consumer) emitWorkerEvent(e shardworker.Event) {
	c.emit(Event{Type: EventType(e.Type), Time: e.Time, Epoch: e.Epoch, Shard: e.Shard, EntryID: e.EntryID, Err: e.Err})
}
