package group

import (
	"fmt"
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/persistence"
)

// resize applies a reshard's new shard set to the group (groupmsg.ResizeRequest).
func (a *groupActor) resize(ctx actor.Context, msg *groupmsg.ResizeRequest) error {
	if err := a.ready(ctx); err != nil {
		return err
	}
	meta := a.state.Meta()
	if msg.MetadataVersion < meta.MetadataVersion || (msg.ShardCount == meta.ShardCount && msg.MetadataVersion == meta.MetadataVersion) {
		return nil // already there, or a stale request (the layout moved on since)
	}
	c := a.state.Resize(msg.ShardCount, msg.MetadataVersion)
	if c == nil {
		return fmt.Errorf("group %s: shard count %d out of range", a.key, msg.ShardCount)
	}
	if msg.ShardCount > meta.ShardCount {
		// The group may have been created after the shards were provisioned for the
		// groups the migration knew: its consumer group must be on the new shards,
		// reading from the start, before any of them is handed out. The driver
		// provisioned the streams; none is created here.
		sctx, cancel := a.storeCtx()
		err := a.deps.Provisioner.EnsureGroupOnExisting(sctx, a.key.StreamPrefix, a.key.ConsumerGroup, meta.ShardCount, msg.ShardCount)
		cancel()
		if err != nil {
			return fmt.Errorf("group %s: create consumer group on new shards: %w", a.key, err)
		}
	}
	if err := a.persist(ctx, c); err != nil {
		return err
	}
	applyNudging(a, ctx, c, "")
	if msg.ShardCount > meta.ShardCount {
		// Shards [old, new) are new incarnations (provisioned with a seeded fence) that
		// may come back to a member still holding the previous incarnation: its holder
		// does not change, so no ownership change writes their fences. Rewrite them to
		// memory's holders before any of them is handed out (shardFences.repair runs before
		// the group answers).
		stale := make([]persistence.FenceUpdate, 0, msg.ShardCount-meta.ShardCount)
		for s := meta.ShardCount; s < msg.ShardCount; s++ {
			stale = append(stale, persistence.FenceUpdate{Shard: s})
		}
		a.fenceBook().markStale(stale)
		if err := a.fenceBook().repair(a.state); err != nil {
			a.deps.Logger.Warn("could not write the fences of the shards a reshard added; retried before the group answers",
				slog.String("group", a.key.String()), a.reqAttr(), slog.Any("err", err))
		}
	}
	return nil
}
