package api

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/httpx"
	"github.com/redisstream/coordinator/coordinator"
)

// HeaderRequestID is the request id header (httpx.HeaderRequestID).
const HeaderRequestID = httpx.HeaderRequestID

// writeError sends the SPEC error body for err (httpx.Write). Server-side
// detail is logged, never sent.
func (s *Server) writeError(c *fiber.Ctx, err error) {
	he, internal, jerr := httpx.Write(c, err)
	if internal {
		s.log.Error("request failed", "method", c.Method(), "route", httpx.RouteLabel(c), "status", he.Status, "requestId", httpx.RequestID(c), "error", err)
	}
	if jerr != nil {
		s.log.Error("writing error body failed", "error", jerr)
	}
}

// reqCtx is ctx() carrying the request's id.
func (s *Server) reqCtx(c *fiber.Ctx) (context.Context, context.CancelFunc) {
	ctx, cancel := s.ctx()
	return coordinator.WithRequestID(ctx, httpx.RequestID(c)), cancel
}
