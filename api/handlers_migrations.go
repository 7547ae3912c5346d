package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/edge"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A stream's migrations, with or without groups (the per-group routes in
// handlers_admin.go and handlers_monitoring.go answer the same migrations
// for an existing group).

// streamMigrations: GET /coord/v1/streams/:p/migrations →
// MigrationsResponse, newest first; 404 STREAM_NOT_FOUND.
func (a *admin) streamMigrations(_ *fiber.Ctx, in *StreamPath) (protocol.MigrationsResponse, error) {
	ctx, cancel := a.ctx()
	defer cancel()
	resp, err := a.svc.StreamMigrations(ctx, in.StreamPrefix)
	emptySlice(&resp.Migrations)
	return resp, err
}

// streamMigration: GET /coord/v1/streams/:p/migrations/:reshardingId → Migration.
func (a *admin) streamMigration(c *fiber.Ctx, in *StreamMigrationPath) (protocol.Migration, error) {
	ctx, cancel := a.reqCtx(c)
	defer cancel()
	return a.svc.StreamMigration(ctx, in.StreamPrefix, in.ReshardingID)
}

// streamRollback: POST /coord/v1/streams/:p/migrations/:reshardingId/rollback
// {requestedBy, reason} → 202 Migration.
func (a *admin) streamRollback(c *fiber.Ctx, in *streamMigrationBody[protocol.RollbackRequest]) (protocol.Migration, error) {
	if err := edge.Rollback(*in.req()); err != nil {
		return protocol.Migration{}, err
	}
	ctx, cancel := a.reqCtx(c)
	defer cancel()
	return a.svc.StreamRollback(ctx, in.StreamPrefix, in.ReshardingID, *in.req())
}
