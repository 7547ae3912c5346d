package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// deleteStream: DELETE /coord/v1/streams/:streamPrefix {requestedBy, reason}
// → 200 DeleteStreamResponse; 404 STREAM_NOT_FOUND, 409 STREAM_NOT_EMPTY.
func (s *Server) deleteStream(c *fiber.Ctx) error {
	p, err := pathName(c, "streamPrefix", "streamPrefix")
	if err != nil {
		return err
	}
	var req protocol.DeleteStreamRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	if err := checkDeleteGroup(protocol.DeleteGroupRequest{RequestedBy: req.RequestedBy, Reason: req.Reason}); err != nil {
		return err
	}
	ctx, cancel := s.reqCtx(c)
	defer cancel()
	resp, err := s.svc.DeleteStream(ctx, p, req)
	if err != nil {
		return err
	}
	return c.JSON(resp)
}
