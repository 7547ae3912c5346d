package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Admin and routing handlers. Each validates path and body (400) before it
// calls the Service, and answers with the status SPEC §5 names.

// decodeBody decodes the raw body into v with protocol.DecodeJSON (400
// MALFORMED_REQUEST on failure).
func decodeBody(c *fiber.Ctx, v any) error {
	body, err := requestBody(c)
	if err != nil {
		return err
	}
	if err := protocol.DecodeJSON(body, v); err != nil {
		return malformed(err)
	}
	return nil
}

// createStream: POST /coord/v1/streams/:streamPrefix → 201 CreateStreamResponse.
func (s *Server) createStream(c *fiber.Ctx) error {
	p, err := pathName(c, "streamPrefix", "streamPrefix")
	if err != nil {
		return err
	}
	var req protocol.CreateStreamRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	if err := s.checkCreateStream(req); err != nil {
		return err
	}
	ctx, cancel := s.reqCtx(c)
	defer cancel()
	resp, err := s.svc.CreateStream(ctx, p, req)
	if err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(resp)
}

// createGroup: POST /coord/v1/streams/:p/groups/:g {requestedBy, reason?}
// → 201 GroupResponse; 409 GROUP_ALREADY_EXISTS, 404 STREAM_NOT_FOUND,
// 429 LIMIT_EXCEEDED (limits.groups-per-stream).
func (s *Server) createGroup(c *fiber.Ctx) error {
	p, g, err := streamGroup(c)
	if err != nil {
		return err
	}
	var req protocol.CreateGroupRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	if err := checkCreateGroup(req); err != nil {
		return err
	}
	ctx, cancel := s.reqCtx(c)
	defer cancel()
	resp, err := s.svc.CreateGroup(ctx, p, g, req)
	if err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(normalizeGroup(resp))
}

// getGroup: GET /coord/v1/streams/:p/groups/:g → GroupResponse.
func (s *Server) getGroup(c *fiber.Ctx) error {
	p, g, err := streamGroup(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.reqCtx(c)
	defer cancel()
	resp, err := s.svc.Group(ctx, p, g)
	if err != nil {
		return err
	}
	return c.JSON(normalizeGroup(resp))
}

// deleteGroup: DELETE /coord/v1/streams/:p/groups/:g {requestedBy, reason,
// force?} → 200 DeleteGroupResponse; 409 GROUP_HAS_ACTIVE_MEMBERS.
func (s *Server) deleteGroup(c *fiber.Ctx) error {
	p, g, err := streamGroup(c)
	if err != nil {
		return err
	}
	var req protocol.DeleteGroupRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	if err := checkDeleteGroup(req); err != nil {
		return err
	}
	ctx, cancel := s.reqCtx(c)
	defer cancel()
	resp, err := s.svc.DeleteGroup(ctx, p, g, req)
	if err != nil {
		return err
	}
	return c.JSON(resp)
}

// producerRouting: GET …/producer-routing → ProducerRouting.
func (s *Server) producerRouting(c *fiber.Ctx) error {
	p, g, err := streamGroup(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.reqCtx(c)
	defer cancel()
	resp, err := s.svc.ProducerRouting(ctx, p, g)
	if err != nil {
		return err
	}
	if resp.Shards == nil {
		resp.Shards = []protocol.RouteShard{}
	}
	return c.JSON(resp)
}

// scale: POST /coord/v1/streams/:p/scale {targetShardCount, requestedBy,
// reason} → 202 ScaleResponse; 409 ACTIVE_MIGRATION_EXISTS.
func (s *Server) scale(c *fiber.Ctx) error {
	p, err := pathName(c, "streamPrefix", "streamPrefix")
	if err != nil {
		return err
	}
	var req protocol.ScaleRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	if err := s.checkScale(req); err != nil {
		return err
	}
	ctx, cancel := s.reqCtx(c)
	defer cancel()
	resp, err := s.svc.Scale(ctx, p, req)
	if err != nil {
		return err
	}
	if resp.AffectedConsumerGroups == nil {
		resp.AffectedConsumerGroups = []string{}
	}
	if resp.Migrations == nil {
		resp.Migrations = []protocol.Migration{}
	}
	return c.Status(http.StatusAccepted).JSON(resp)
}

// migration: GET …/migrations/:reshardingId → Migration.
func (s *Server) migration(c *fiber.Ctx) error {
	p, g, err := streamGroup(c)
	if err != nil {
		return err
	}
	id, err := pathName(c, "reshardingId", "reshardingId")
	if err != nil {
		return err
	}
	ctx, cancel := s.reqCtx(c)
	defer cancel()
	resp, err := s.svc.Migration(ctx, p, g, id)
	if err != nil {
		return err
	}
	return c.JSON(resp)
}

// rollback: POST …/migrations/:reshardingId/rollback {requestedBy, reason}
// → 202 Migration; 404 unknown, 422 ROLLBACK_NOT_ALLOWED.
func (s *Server) rollback(c *fiber.Ctx) error {
	p, g, err := streamGroup(c)
	if err != nil {
		return err
	}
	id, err := pathName(c, "reshardingId", "reshardingId")
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
	resp, err := s.svc.Rollback(ctx, p, g, id, req)
	if err != nil {
		return err
	}
	return c.Status(http.StatusAccepted).JSON(resp)
}

// normalizeGroup turns nil maps into {} so clients never see null summaries.
func normalizeGroup(g protocol.GroupResponse) protocol.GroupResponse {
	if g.TargetAssignmentSummary == nil {
		g.TargetAssignmentSummary = map[string]int{}
	}
	if g.CurrentAssignmentSummary == nil {
		g.CurrentAssignmentSummary = map[string]int{}
	}
	return g
}
