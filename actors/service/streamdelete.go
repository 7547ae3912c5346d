package service

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard"
)

// DeleteStream deletes the record of a stream that has 0 shards (none left
// draining), no migration in progress and no groups. Otherwise it deletes
// nothing and says what to do first. The write is a compare-and-set on the
// record's revision, so a scale that lands meanwhile wins.
func (h Admin) DeleteStream(ctx context.Context, streamPrefix string, req protocol.DeleteStreamRequest) (protocol.DeleteStreamResponse, error) {
	if err := h.router.Refusal(); err != nil {
		return protocol.DeleteStreamResponse{}, err
	}
	rec, err := h.stream(ctx, streamPrefix)
	if err != nil {
		return protocol.DeleteStreamResponse{}, err
	}
	l, err := reshard.Decode(rec.Extra)
	if err != nil {
		return protocol.DeleteStreamResponse{}, fmt.Errorf("stream %s: %w: %w", streamPrefix, coordinator.ErrUnavailable, err)
	}
	q := shellQuote(streamPrefix)
	if a := l.Active; a != nil {
		return protocol.DeleteStreamResponse{}, fmt.Errorf("stream %s has a migration in progress (%s, %d → %d shards): wait for it to finish (streamctl streams describe %s), then delete the stream: %w",
			streamPrefix, a.ID, a.From, a.To, q, coordinator.ErrStreamNotEmpty)
	}
	if n := l.ConsumeCount(rec.ShardCount); n > 0 {
		return protocol.DeleteStreamResponse{}, fmt.Errorf("stream %s has %d shard(s): scale it to 0 first (streamctl scale %s 0 --yes, or POST /coord/v1/streams/{prefix}/scale {\"targetShardCount\":0}) and wait for the migration to finish: %w",
			streamPrefix, n, q, coordinator.ErrStreamNotEmpty)
	}
	keys, err := h.opts.Store.ListGroups(ctx, streamPrefix)
	if err != nil {
		return protocol.DeleteStreamResponse{}, router.StoreErr(err)
	}
	if len(keys) > 0 {
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = k.ConsumerGroup
		}
		return protocol.DeleteStreamResponse{}, fmt.Errorf("stream %s still has group(s) %s: delete them first (streamctl groups delete %s %s): %w",
			streamPrefix, strings.Join(names, ", "), q, shellQuote(names[0]), coordinator.ErrStreamNotEmpty)
	}
	err = h.opts.Store.DeleteStream(ctx, streamPrefix, rec.Revision)
	if errors.Is(err, persistence.ErrNotFound) {
		return protocol.DeleteStreamResponse{}, fmt.Errorf("stream %s: %w", streamPrefix, coordinator.ErrStreamNotFound)
	}
	if err != nil {
		return protocol.DeleteStreamResponse{}, router.StoreErr(err)
	}
	h.forgetFull(streamPrefix)
	h.opts.Logger.Info("stream deleted", "stream", streamPrefix, "requestId", coordinator.RequestIDFrom(ctx), "requestedBy", req.RequestedBy, "reason", req.Reason)
	return protocol.DeleteStreamResponse{StreamPrefix: streamPrefix, Deleted: true}, nil
}

// shellQuote quotes a name for a command line shown in a message.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
