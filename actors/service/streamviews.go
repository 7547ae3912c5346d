package service

import (
	"context"
	"time"

	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard"
)

// Streams lists every stream with its routing and consumed shard counts and
// its active migration, from the stream records (one read each).
func (h Monitor) Streams(ctx context.Context) (protocol.StreamsResponse, error) {
	if err := h.router.Refusal(); err != nil {
		return protocol.StreamsResponse{}, err
	}
	recs, err := h.opts.Store.ListStreams(ctx)
	if err != nil {
		return protocol.StreamsResponse{}, router.StoreErr(err)
	}
	out := protocol.StreamsResponse{Streams: make([]protocol.StreamView, 0, len(recs))}
	for _, rec := range recs {
		out.Streams = append(out.Streams, streamView(rec))
	}
	return out, nil
}

// Stream describes one stream and names its groups.
func (h Monitor) Stream(ctx context.Context, streamPrefix string) (protocol.StreamView, error) {
	if err := h.router.Refusal(); err != nil {
		return protocol.StreamView{}, err
	}
	rec, err := h.stream(ctx, streamPrefix)
	if err != nil {
		return protocol.StreamView{}, err
	}
	v := streamView(rec)
	keys, err := h.opts.Store.ListGroups(ctx, streamPrefix)
	if err != nil {
		return protocol.StreamView{}, router.StoreErr(err)
	}
	v.Groups = make([]string, 0, len(keys))
	for _, k := range keys {
		v.Groups = append(v.Groups, k.ConsumerGroup)
	}
	return v, nil
}

func streamView(rec persistence.StreamRecord) protocol.StreamView {
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	v := protocol.StreamView{
		StreamPrefix: rec.StreamPrefix, ShardCount: rec.ShardCount, ConsumedShardCount: rec.ShardCount,
		MetadataVersion: rec.MetadataVersion, StreamKeyPattern: protocol.StreamKeyPattern(rec.StreamPrefix),
		CreatedAt: ts(rec.CreatedAt), UpdatedAt: ts(rec.UpdatedAt), CreatedBy: rec.CreatedBy, Reason: rec.Reason,
	}
	if l, err := reshard.Decode(rec.Extra); err == nil {
		v.ConsumedShardCount = l.ConsumeCount(rec.ShardCount)
		if l.Active != nil {
			m := migrationView(*l.Active, rec.StreamPrefix, "")
			v.ActiveMigration = &m
		}
	}
	return v
}
