package group

import (
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard"
)

// shardSet is the number of shards a group of stream consumes: the routing
// count, or more while a scale-in's removed shards drain (package reshard).
// A layout that cannot be decoded falls back to the routing count (the
// stream record itself was readable; the next driver write repairs it).
func shardSet(stream persistence.StreamRecord) int {
	l, err := reshard.Decode(stream.Extra)
	if err != nil {
		return stream.ShardCount
	}
	return l.ConsumeCount(stream.ShardCount)
}

// streamChanged reports whether the stream's shard set or metadata moved on
// from what the group holds.
func streamChanged(stream persistence.StreamRecord, shardCount int, metadataVersion int64) bool {
	if stream.MetadataVersion != metadataVersion {
		return stream.MetadataVersion > metadataVersion
	}
	return shardSet(stream) != shardCount
}

// ensureConsumerGroup creates the group's Redis consumer group on shards
// [from, to) of stream, reading from the start: with MKSTREAM below the
// routing count, and only on existing streams at and above it (shards a
// scale-in removes, which the migration may have retired already).
func (a *groupActor) ensureConsumerGroup(stream persistence.StreamRecord, from, to int) error {
	sctx, cancel := a.storeCtx()
	defer cancel()
	split := min(max(stream.ShardCount, from), to)
	if err := a.deps.Provisioner.EnsureGroup(sctx, a.key.StreamPrefix, a.key.ConsumerGroup, from, split); err != nil {
		return err
	}
	return a.deps.Provisioner.EnsureGroupOnExisting(sctx, a.key.StreamPrefix, a.key.ConsumerGroup, split, to)
}
