package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard"
)

// Scale starts resharding the stream to targetShardCount (validated by the
// API: 0 ≤ count ≤ max). The migration is recorded (PREPARING) and, when
// this node can take the stream's driver lease, its provisioning runs before
// the answer: a provisioning that fails is answered 503 with the migration
// left PREPARING (nothing activated, routing unchanged); the driver retries
// it, and posting the same scale again, while that migration has not
// finished, answers it (202).
func (h Admin) Scale(ctx context.Context, streamPrefix string, req protocol.ScaleRequest) (protocol.ScaleResponse, error) {
	if err := h.router.Refusal(); err != nil {
		return protocol.ScaleResponse{}, err
	}
	target := *req.TargetShardCount
	var m reshard.Migration
	for attempt := 0; ; attempt++ {
		rec, err := h.stream(ctx, streamPrefix)
		if err != nil {
			return protocol.ScaleResponse{}, err
		}
		l, err := reshard.Decode(rec.Extra)
		if err != nil {
			return protocol.ScaleResponse{}, fmt.Errorf("stream %s: %w: %w", streamPrefix, coordinator.ErrUnavailable, err)
		}
		if a := l.Active; a != nil && a.To == target && a.RollbackBy == "" {
			// The same scale posted again (a retry after a 503 or a lost answer): answer
			// the migration in progress; if it is still preparing, this node continues it.
			m = *a
			break
		}
		r := reshard.Record{Routing: rec.ShardCount, MetadataVersion: rec.MetadataVersion, Layout: l, Keep: h.opts.MigrationHistory}
		started, err := r.Start(target, req.RequestedBy, req.Reason, h.opts.NodeID, h.opts.Now())
		switch {
		case errors.Is(err, reshard.ErrActive):
			return protocol.ScaleResponse{}, fmt.Errorf("stream %s: %s; wait for it to finish or roll it back: %w", streamPrefix, err.Error(), coordinator.ErrMigrationActive)
		case errors.Is(err, reshard.ErrSameCount):
			return protocol.ScaleResponse{}, fmt.Errorf("targetShardCount %d: stream %s already has %d shards: %w", target, streamPrefix, rec.ShardCount, coordinator.ErrInvalidArgument)
		case err != nil:
			return protocol.ScaleResponse{}, err
		}
		// Marked first, so that a recorded migration is always found by the drivers (a
		// mark without a migration is dropped by the next round).
		if err := h.opts.Store.MarkResharding(ctx, streamPrefix); err != nil {
			return protocol.ScaleResponse{}, router.StoreErr(err)
		}
		err = h.rs.SaveLayout(ctx, rec, r)
		if errors.Is(err, persistence.ErrConflict) && attempt < 5 {
			continue
		}
		if err != nil {
			return protocol.ScaleResponse{}, router.StoreErr(err)
		}
		m = *started
		h.opts.Logger.Info("migration started", slog.String("stream", streamPrefix), slog.String("migration", m.ID),
			slog.Int("from", m.From), slog.Int("to", m.To), slog.String("requestedBy", req.RequestedBy), slog.String("reason", req.Reason))
		break
	}
	// Marked again now that the migration is recorded: a driver finishing the
	// previous migration may have unmarked the stream after the first mark and
	// looked again before the save (it re-marks only what it sees recorded).
	// A mark after the save is either seen by the drivers or follows a driver's
	// unmark whose second look found this migration.
	if err := h.opts.Store.MarkResharding(ctx, streamPrefix); err != nil {
		return protocol.ScaleResponse{}, router.StoreErr(err)
	}
	if err := h.rs.DriveNow(streamPrefix, m.ID); err != nil {
		return protocol.ScaleResponse{}, err
	}
	h.rs.Kick()
	return h.scaleResponse(ctx, streamPrefix, target, m.ID)
}

// scaleResponse answers an accepted scale: the migration as each group of
// the stream sees it.
func (h *core) scaleResponse(ctx context.Context, p string, target int, id string) (protocol.ScaleResponse, error) {
	rec, err := h.stream(ctx, p)
	if err != nil {
		return protocol.ScaleResponse{}, err
	}
	l, _ := reshard.Decode(rec.Extra)
	m, ok := l.Find(id)
	if !ok {
		return protocol.ScaleResponse{}, fmt.Errorf("migration %s of %s vanished: %w", id, p, coordinator.ErrMigrationNotFound)
	}
	keys, err := h.opts.Store.ListGroups(ctx, p)
	if err != nil {
		return protocol.ScaleResponse{}, router.StoreErr(err)
	}
	out := protocol.ScaleResponse{StreamPrefix: p, TargetShardCount: target, AffectedConsumerGroups: []string{}, Migrations: []protocol.Migration{}}
	for _, k := range keys {
		out.AffectedConsumerGroups = append(out.AffectedConsumerGroups, k.ConsumerGroup)
		out.Migrations = append(out.Migrations, migrationView(m, p, k.ConsumerGroup))
	}
	if len(keys) == 0 {
		out.Migrations = append(out.Migrations, migrationView(m, p, ""))
	}
	return out, nil
}

// layout reads the stream's resharding layout.
func (h *core) layout(ctx context.Context, p string) (persistence.StreamRecord, reshard.Layout, error) {
	rec, err := h.stream(ctx, p)
	if err != nil {
		return rec, reshard.Layout{}, err
	}
	l, err := reshard.Decode(rec.Extra)
	if err != nil {
		return rec, l, fmt.Errorf("stream %s: %w: %w", p, coordinator.ErrUnavailable, err)
	}
	return rec, l, nil
}

// withMigration fills in the group's active migration (layouts caches the
// stream layouts read by one listing; nil: read each time). A layout that
// cannot be read leaves the field empty: the group view still answers.
func (h *core) withMigration(ctx context.Context, g protocol.GroupResponse, layouts map[string]*reshard.Layout) protocol.GroupResponse {
	l, ok := layouts[g.StreamPrefix]
	if !ok {
		if _, got, err := h.layout(ctx, g.StreamPrefix); err == nil {
			l = &got
		}
		if layouts != nil {
			layouts[g.StreamPrefix] = l
		}
	}
	if l != nil && l.Active != nil {
		v := migrationView(*l.Active, g.StreamPrefix, g.ConsumerGroup)
		g.ActiveMigration = &v
	}
	return g
}

// migrationView renders a stored migration for the API.
func migrationView(m reshard.Migration, p, g string) protocol.Migration {
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	out := protocol.Migration{
		ReshardingID: m.ID, StreamPrefix: p, ConsumerGroup: g,
		FromShardCount: m.From, ToShardCount: m.To, State: m.State,
		CreatedAt: ts(m.CreatedAt), UpdatedAt: ts(m.UpdatedAt),
		RequestedBy: m.RequestedBy, Reason: m.Reason,
		RollbackRequestedBy: m.RollbackBy, RollbackReason: m.RollbackReason,
		MetadataVersion: m.MetadataVersion, Waiting: m.Waiting,
	}
	for _, s := range m.Shards {
		v := protocol.MigrationShard{ShardIndex: s.Index, StreamKey: protocol.StreamKey(p, s.Index), Change: s.Change, State: s.State, RetiredKey: s.Retired}
		for _, b := range s.Blocked {
			v.BlockedBy = append(v.BlockedBy, protocol.ShardBacklog{ConsumerGroup: b.Group, Pending: b.Pending, Lag: b.Lag})
		}
		out.Shards = append(out.Shards, v)
	}
	for _, e := range m.History {
		out.History = append(out.History, protocol.MigrationStep{State: e.State, At: ts(e.At), Node: e.Node, Note: e.Note})
	}
	return out
}
