package service

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// Offsets reads the group's views (never creating it), then asks the
// provisioner what Redis reports for every shard the group covers: shards
// 0…shardCount-1, plus any shard beyond the count that a member still
// holds or is targeted (a scale-in draining it).
func (h Browser) Offsets(ctx context.Context, streamPrefix, groupName string) (protocol.OffsetsResponse, error) {
	d, err := h.describe(ctx, streamPrefix, groupName, false)
	if err != nil {
		return protocol.OffsetsResponse{}, err
	}
	owners := shardOwners(d.Assignments.CurrentAssignments)
	targets := shardOwners(d.Assignments.TargetAssignment)
	shards := make([]int, 0, d.Group.ShardCount)
	for i := 0; i < d.Group.ShardCount; i++ {
		shards = append(shards, i)
	}
	var extra []int
	for _, m := range []map[int]string{owners, targets} {
		for s := range m {
			if s >= d.Group.ShardCount && !containsInt(extra, s) {
				extra = append(extra, s)
			}
		}
	}
	sort.Ints(extra)
	shards = append(shards, extra...)

	infos, err := h.opts.Provisioner.ShardOffsets(ctx, streamPrefix, groupName, shards)
	if errors.Is(err, persistence.ErrWrongKeyType) {
		return protocol.OffsetsResponse{}, fmt.Errorf("offsets of %s/%s: %v: %w", streamPrefix, groupName, err, coordinator.ErrShardKeyNotStream)
	}
	if err != nil {
		return protocol.OffsetsResponse{}, router.StoreErr(fmt.Errorf("offsets of %s/%s: %w", streamPrefix, groupName, err))
	}
	out := protocol.OffsetsResponse{
		StreamPrefix: streamPrefix, ConsumerGroup: groupName,
		ShardCount: d.Group.ShardCount, MetadataVersion: d.Group.MetadataVersion,
		Shards: make([]protocol.ShardOffsets, len(infos)),
	}
	for i, in := range infos {
		names := make([]protocol.ShardConsumer, len(in.Consumers))
		for j, c := range in.Consumers {
			names[j] = protocol.ShardConsumer{Name: c.Name, Pending: c.Pending, IdleMs: c.IdleMs}
		}
		out.Shards[i] = protocol.ShardOffsets{
			ShardIndex: in.Shard, StreamKey: in.StreamKey, Exists: in.Exists,
			Length: in.Length, LastGeneratedID: in.LastGeneratedID,
			GroupExists: in.GroupExists, LastDeliveredID: in.LastDeliveredID,
			EntriesRead: in.EntriesRead, Lag: in.Lag, Pending: in.Pending,
			Consumers:   protocol.ShardConsumers{Count: len(names), Names: names},
			MemoryUsage: in.MemoryUsage,
			Owner:       owners[in.Shard], TargetOwner: targets[in.Shard],
		}
	}
	return out, nil
}

// shardOwners inverts memberId → shards. A shard listed by two members
// (which the single-owner invariant forbids for current ownership, and
// monitoring reports as a violation) shows both, comma separated.
func shardOwners(byMember map[string][]protocol.ShardID) map[int]string {
	members := make([]string, 0, len(byMember))
	for m := range byMember {
		members = append(members, m)
	}
	sort.Strings(members)
	out := map[int]string{}
	for _, m := range members {
		for _, s := range byMember[m] {
			if prev := out[s.ShardIndex]; prev != "" {
				out[s.ShardIndex] = prev + "," + m
			} else {
				out[s.ShardIndex] = m
			}
		}
	}
	return out
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// Messages reads one page of a shard stream: shards 0 ≤ shard < the
// stream's consuming count only (the routing count, or more while a
// scale-in's removed shards drain). Any other index is ErrShardNotFound
// even if a key of that name exists: it is not this stream's (a key
// written by hand, a retired shard, another stream's key that happens to
// share the name).
func (h Browser) Messages(ctx context.Context, streamPrefix string, shard int, from string, count int) (protocol.MessagesResponse, error) {
	if err := h.router.Refusal(); err != nil {
		return protocol.MessagesResponse{}, err
	}
	if shard < 0 || count < 1 {
		return protocol.MessagesResponse{}, fmt.Errorf("shard %d, count %d: %w", shard, count, coordinator.ErrInvalidArgument)
	}
	rec, l, err := h.layout(ctx, streamPrefix)
	if err != nil {
		return protocol.MessagesResponse{}, err
	}
	key := protocol.StreamKey(streamPrefix, shard)
	if n := max(rec.ShardCount, l.ConsumeCount(rec.ShardCount)); shard >= n {
		return protocol.MessagesResponse{}, fmt.Errorf("shard %d of stream %s: the stream has shards 0..%d (shardCount %d): %w",
			shard, streamPrefix, n-1, rec.ShardCount, coordinator.ErrShardNotFound)
	}
	entries, more, err := h.opts.Provisioner.ReadShard(ctx, streamPrefix, shard, from, count)
	if errors.Is(err, persistence.ErrInvalidStreamID) {
		return protocol.MessagesResponse{}, fmt.Errorf("from: %s: %w", strings.TrimPrefix(err.Error(), "read shard "+key+": "), coordinator.ErrInvalidArgument)
	}
	if errors.Is(err, persistence.ErrWrongKeyType) {
		return protocol.MessagesResponse{}, fmt.Errorf("shard %d of stream %s: key %s holds no stream (written by something other than the coordinator's producers?): %w",
			shard, streamPrefix, key, coordinator.ErrShardKeyNotStream)
	}
	if err != nil {
		return protocol.MessagesResponse{}, router.StoreErr(err)
	}
	out := protocol.MessagesResponse{StreamPrefix: streamPrefix, ShardIndex: shard, StreamKey: key,
		Messages: make([]protocol.StreamMessage, len(entries))}
	for i, e := range entries {
		out.Messages[i] = protocol.StreamMessage{ID: e.ID, Fields: e.Fields}
	}
	if more && len(entries) > 0 {
		next := entries[len(entries)-1].ID
		out.NextCursor = &next
	}
	return out, nil
}
