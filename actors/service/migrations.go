package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard"
)

// A stream's migrations are stored with the stream, not with a group: the
// per-stream reads and rollback work for a stream without groups; the
// per-group ones check that the group exists and name it in the views.

// Migration returns one migration of an existing group's stream.
func (h Admin) Migration(ctx context.Context, streamPrefix, groupName, reshardingID string) (protocol.Migration, error) {
	if _, err := h.describe(ctx, streamPrefix, groupName, false); err != nil {
		return protocol.Migration{}, err
	}
	return h.migration(ctx, streamPrefix, groupName, reshardingID)
}

// StreamMigration returns one migration of a stream (with or without groups).
func (h Admin) StreamMigration(ctx context.Context, streamPrefix, reshardingID string) (protocol.Migration, error) {
	return h.migration(ctx, streamPrefix, "", reshardingID)
}

func (h *core) migration(ctx context.Context, p, g, id string) (protocol.Migration, error) {
	_, l, err := h.layout(ctx, p)
	if err != nil {
		return protocol.Migration{}, err
	}
	m, ok := l.Find(id)
	if !ok {
		return protocol.Migration{}, fmt.Errorf("migration %s of stream %s (kept: the active one and the last %d finished; list them with GET /coord/v1/streams/%s/migrations): %w",
			id, p, h.opts.MigrationHistory, p, coordinator.ErrMigrationNotFound)
	}
	return migrationView(m, p, g), nil
}

// Migrations lists an existing group's migrations, newest first.
func (h Monitor) Migrations(ctx context.Context, streamPrefix, groupName string) (protocol.MigrationsResponse, error) {
	if _, err := h.describe(ctx, streamPrefix, groupName, false); err != nil {
		return protocol.MigrationsResponse{}, err
	}
	return h.migrations(ctx, streamPrefix, groupName)
}

// StreamMigrations lists a stream's migrations, newest first (with or
// without groups).
func (h Admin) StreamMigrations(ctx context.Context, streamPrefix string) (protocol.MigrationsResponse, error) {
	return h.migrations(ctx, streamPrefix, "")
}

func (h *core) migrations(ctx context.Context, p, g string) (protocol.MigrationsResponse, error) {
	_, l, err := h.layout(ctx, p)
	if err != nil {
		return protocol.MigrationsResponse{}, err
	}
	out := protocol.MigrationsResponse{Migrations: []protocol.Migration{}}
	for _, m := range l.All() {
		out.Migrations = append(out.Migrations, migrationView(m, p, g))
	}
	if l.Active != nil {
		id := l.Active.ID
		out.ActiveReshardingID = &id
	}
	return out, nil
}

// Rollback records a rollback of the active migration of an existing
// group's stream; the driver carries it out. 404 for an unknown id, 422
// when it finished or already rolls back.
func (h Admin) Rollback(ctx context.Context, streamPrefix, groupName, reshardingID string, req protocol.RollbackRequest) (protocol.Migration, error) {
	if err := h.router.Refusal(); err != nil {
		return protocol.Migration{}, err
	}
	if _, err := h.describe(ctx, streamPrefix, groupName, false); err != nil {
		return protocol.Migration{}, err
	}
	return h.rollback(ctx, streamPrefix, groupName, reshardingID, req)
}

// StreamRollback is Rollback for a stream (with or without groups).
func (h Admin) StreamRollback(ctx context.Context, streamPrefix, reshardingID string, req protocol.RollbackRequest) (protocol.Migration, error) {
	if err := h.router.Refusal(); err != nil {
		return protocol.Migration{}, err
	}
	return h.rollback(ctx, streamPrefix, "", reshardingID, req)
}

func (h *core) rollback(ctx context.Context, p, g, id string, req protocol.RollbackRequest) (protocol.Migration, error) {
	for attempt := 0; ; attempt++ {
		rec, l, err := h.layout(ctx, p)
		if err != nil {
			return protocol.Migration{}, err
		}
		r := reshard.Record{Routing: rec.ShardCount, MetadataVersion: rec.MetadataVersion, Layout: l, Keep: h.opts.MigrationHistory}
		m, err := r.Rollback(id, req.RequestedBy, req.Reason, h.opts.NodeID, h.opts.Now())
		switch {
		case errors.Is(err, reshard.ErrNotFound):
			return protocol.Migration{}, fmt.Errorf("migration %s of stream %s: %w", id, p, coordinator.ErrMigrationNotFound)
		case errors.Is(err, reshard.ErrRollbackNotAllowed):
			return protocol.Migration{}, fmt.Errorf("%s: %w", err.Error(), coordinator.ErrRollbackNotAllowed)
		case err != nil:
			return protocol.Migration{}, err
		}
		if err := h.opts.Store.MarkResharding(ctx, p); err != nil {
			return protocol.Migration{}, router.StoreErr(err)
		}
		view := migrationView(*m, p, g)
		err = h.rs.SaveLayout(ctx, rec, r)
		if errors.Is(err, persistence.ErrConflict) && attempt < 5 {
			continue
		}
		if err != nil {
			return protocol.Migration{}, router.StoreErr(err)
		}
		h.opts.Logger.Info("migration rollback requested", slog.String("stream", p), slog.String("migration", id),
			slog.Int("backTo", m.From), slog.String("requestedBy", req.RequestedBy), slog.String("reason", req.Reason))
		h.rs.Kick()
		return view, nil
	}
}
