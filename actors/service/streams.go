package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// MaxShardCount bounds the shard count of one stream.
const MaxShardCount = 4096

// CreateStream provisions every shard stream, then stores the stream record
// (metadataVersion 1). Producers publish with XADD NOMKSTREAM, so routing
// must never point at a shard that does not exist yet.
func (h Admin) CreateStream(ctx context.Context, streamPrefix string, req protocol.CreateStreamRequest) (protocol.CreateStreamResponse, error) {
	if err := h.router.Refusal(); err != nil {
		return protocol.CreateStreamResponse{}, err
	}
	count := h.opts.DefaultShardCount
	if req.InitialShardCount != nil {
		count = *req.InitialShardCount
	}
	if count < 1 || count > MaxShardCount {
		return protocol.CreateStreamResponse{}, fmt.Errorf("initialShardCount = %d: must be between 1 and %d: %w", count, MaxShardCount, coordinator.ErrInvalidArgument)
	}
	if _, err := h.opts.Store.GetStream(ctx, streamPrefix); err == nil {
		return protocol.CreateStreamResponse{}, fmt.Errorf("stream %s: %w", streamPrefix, coordinator.ErrStreamExists)
	} else if !errors.Is(err, persistence.ErrNotFound) {
		return protocol.CreateStreamResponse{}, router.StoreErr(err)
	}
	if err := h.opts.Provisioner.EnsureStreams(ctx, streamPrefix, 0, count); err != nil {
		return protocol.CreateStreamResponse{}, router.StoreErr(fmt.Errorf("provision shards of %s: %w", streamPrefix, err))
	}
	now := h.opts.Now()
	rec, err := h.opts.Store.CreateStream(ctx, persistence.StreamRecord{
		StreamPrefix: streamPrefix, ShardCount: count, MetadataVersion: 1,
		CreatedAt: now, UpdatedAt: now, CreatedBy: req.RequestedBy, Reason: req.Reason,
	})
	if errors.Is(err, persistence.ErrExists) {
		return protocol.CreateStreamResponse{}, fmt.Errorf("stream %s: %w", streamPrefix, coordinator.ErrStreamExists)
	}
	if err != nil {
		return protocol.CreateStreamResponse{}, router.StoreErr(err)
	}
	h.opts.Logger.Info("stream created", "stream", streamPrefix, "shards", count, "requestId", coordinator.RequestIDFrom(ctx), "requestedBy", req.RequestedBy, "reason", req.Reason)
	return protocol.CreateStreamResponse{StreamPrefix: rec.StreamPrefix, ShardCount: rec.ShardCount, MetadataVersion: rec.MetadataVersion}, nil
}

// stream reads a stream record: ErrStreamNotFound, or ErrUnavailable.
func (h *core) stream(ctx context.Context, streamPrefix string) (persistence.StreamRecord, error) {
	rec, err := h.opts.Store.GetStream(ctx, streamPrefix)
	if errors.Is(err, persistence.ErrNotFound) {
		return rec, fmt.Errorf("stream %s: %w", streamPrefix, coordinator.ErrStreamNotFound)
	}
	return rec, router.StoreErr(err)
}

// Health reports the store, the actor loop and nodes that share the store
// without forming one cluster with this node.
func (h Monitor) Health(ctx context.Context) protocol.HealthResponse {
	out := protocol.HealthResponse{Status: "UP", CoordinatorID: h.opts.NodeID, Redis: "UP", Loop: "UP", Embedded: h.opts.EmbeddedRedis}
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := h.opts.Store.Ping(pctx); err != nil {
		out.Redis = "DOWN"
	} else if why := h.node.StoreReadOnly(); why != "" {
		// It answers, but refused this node's last write: nothing can change.
		out.Redis, out.RedisReason = protocol.RedisReadOnly, why
	}
	if err := h.views.LoopAlive(time.Second); err != nil {
		out.Loop = "DOWN"
	}
	out.StateLost = h.node.LossReport(h.opts.Now())
	out.Cluster = h.views.Health()
	out.Refusing = h.node.Refusing()
	out.NodeConflict = h.node.Conflict()
	switch {
	case out.Loop == "DOWN", out.Refusing != "":
		out.Status = "DOWN"
	case out.NodeConflict != nil && out.NodeConflict.Refusing:
		// Another node shares the store without forming one cluster with this
		// one and registered earlier: this node refuses to serve (actors/node).
		out.Status = "DOWN"
	case out.StateLost != nil:
		// Grants are held while members that may still hold shards fence themselves.
		out.Status = "DEGRADED"
	case out.Redis == "DOWN", out.Redis == protocol.RedisReadOnly:
		// Members keep their shards within their leases; nothing moves.
		out.Status = "DEGRADED"
	}
	return out
}
