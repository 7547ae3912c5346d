package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A stream's migrations, with or without groups (the per-group routes in
// handlers_admin.go and handlers_monitoring.go answer the same migrations
// for an existing group).

// streamMigrations: GET /coord/v1/streams/:p/migrations →
// MigrationsResponse, newest first; 404 STREAM_NOT_FOUND.
func (s *Server) streamMigrations(c *fiber.Ctx) error {
	p, err := pathName(c, "streamPrefix", "streamPrefix")
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	resp, err := s.svc.StreamMigrations(ctx, p)
	if err != nil {
		return err
	}
	if resp.Migrations == nil {
		resp.Migrations = []protocol.Migration{}
	}
	return c.JSON(resp)
}

// streamMigration: GET /coord/v1/streams/:p/migrations/:reshardingId →
// Migration; 404 STREAM_NOT_FOUND or MIGRATION_NOT_FOUND.
func (s *Server) streamMigration(c *fiber.Ctx) error {
	p, id, err := streamMigrationID(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.reqCtx(c)
	defer cancel()
	resp, err := s.svc.StreamMigration(ctx, p, id)
	if err != nil {
		return err
	}
	return c.JSON(resp)
}

// streamRollback: POST /coord/v1/streams/:p/migrations/:reshardingId/rollback
// {requestedBy, reason} → 202 Migration; 404 unknown, 422 ROLLBACK_NOT_ALLOWED.
func (s *Server) streamRollback(c *fiber.Ctx) error {
	p, id, err := streamMigrationID(c)
	if err != nil {
		return err
	}
	var req protocol.RollbackRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	if err := checkRollback(req); err != nil {
		return err
	}
	ctx, cancel := s.reqCtx(c)
	defer cancel()
	resp, err := s.svc.StreamRollback(ctx, p, id, req)
	if err != nil {
		return err
	}
	return c.Status(http.StatusAccepted).JSON(resp)
}

func streamMigrationID(c *fiber.Ctx) (p, id string, err error) {
	if p, err = pathName(c, "streamPrefix", "streamPrefix"); err != nil {
		return "", "", err
	}
	id, err = pathName(c, "reshardingId", "reshardingId")
	return p, id, err
}
