package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/edge"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// deleteStream: DELETE /coord/v1/streams/:streamPrefix {requestedBy, reason}
// → 200 DeleteStreamResponse; 404 STREAM_NOT_FOUND, 409 STREAM_NOT_EMPTY.
func (a *admin) deleteStream(c *fiber.Ctx, in *streamBody[protocol.DeleteStreamRequest]) (protocol.DeleteStreamResponse, error) {
	req := *in.req()
	if err := edge.DeleteGroup(protocol.DeleteGroupRequest{RequestedBy: req.RequestedBy, Reason: req.Reason}); err != nil {
		return protocol.DeleteStreamResponse{}, err
	}
	ctx, cancel := a.reqCtx(c)
	defer cancel()
	return a.svc.DeleteStream(ctx, in.StreamPrefix, req)
}
