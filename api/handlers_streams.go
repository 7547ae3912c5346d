package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// streams: GET /coord/v1/streams → {streams:[StreamView]}, only the
// streams in the user's scope (scopefilter.go).
func (s *Server) streams(c *fiber.Ctx) error {
	ctx, cancel := s.ctx()
	defer cancel()
	resp, err := s.svc.Streams(ctx)
	if err != nil {
		return err
	}
	streams, _ := requestScope(c)
	resp.Streams = scopedStreams(streams, resp.Streams)
	if resp.Streams == nil {
		resp.Streams = []protocol.StreamView{}
	}
	return c.JSON(resp)
}

// stream: GET /coord/v1/streams/:streamPrefix → StreamView with its groups;
// 404 STREAM_NOT_FOUND.
func (s *Server) stream(c *fiber.Ctx) error {
	p, err := pathName(c, "streamPrefix", "streamPrefix")
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	v, err := s.svc.Stream(ctx, p)
	if err != nil {
		return err
	}
	_, groups := requestScope(c)
	v.Groups = scopedGroupNames(groups, v.Groups) // scopefilter.go
	if v.Groups == nil {
		v.Groups = []string{}
	}
	return c.JSON(v)
}
