package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/auth"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// streams: GET /coord/v1/streams → {streams:[StreamView]}, only the
// streams in the user's scope (scopefilter.go).
func (b *browse) streams(c *fiber.Ctx, _ *noInput) (protocol.StreamsResponse, error) {
	ctx, cancel := b.ctx()
	defer cancel()
	resp, err := b.svc.Streams(ctx)
	if err != nil {
		return resp, err
	}
	streams, _ := auth.RequestScope(c)
	resp.Streams = auth.ScopedStreams(streams, resp.Streams)
	emptySlice(&resp.Streams)
	return resp, nil
}

// stream: GET /coord/v1/streams/:streamPrefix → StreamView with its groups;
// 404 STREAM_NOT_FOUND.
func (b *browse) stream(c *fiber.Ctx, in *StreamPath) (protocol.StreamView, error) {
	ctx, cancel := b.ctx()
	defer cancel()
	v, err := b.svc.Stream(ctx, in.StreamPrefix)
	if err != nil {
		return v, err
	}
	_, groups := auth.RequestScope(c)
	v.Groups = auth.ScopedGroupNames(groups, v.Groups) // scopefilter.go
	emptySlice(&v.Groups)
	return v, nil
}
