package api

import (
	"strconv"
	"strings"

	"github.com/redisstream/coordinator/api/httpx"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Browsing handlers: read-only views of the data plane (READ role). They
// never create a group.

// offsets: GET /coord/v1/streams/:p/groups/:g/offsets → OffsetsResponse.
func (b *browse) offsets() func(*fiber.Ctx, *GroupPath) (protocol.OffsetsResponse, error) {
	return monitorRead(b.ctx, b.svc.Offsets, func(r *protocol.OffsetsResponse) {
		emptySlice(&r.Shards)
		for i := range r.Shards {
			emptySlice(&r.Shards[i].Consumers.Names)
		}
	})
}

// messages: GET /coord/v1/streams/:p/shards/:shardIndex/messages?from=&count=
// → MessagesResponse. from: exclusive cursor, "-" (default, also when empty)
// or an entry id;
// count: 1..limits.browse-max-count, default DefaultBrowseCount.
func (b *browse) messages(c *fiber.Ctx, in *shardPage) (protocol.MessagesResponse, error) {
	shard, err := b.shardParam(c)
	if err != nil {
		return protocol.MessagesResponse{}, err
	}
	from, count, err := b.pageParams(c)
	if err != nil {
		return protocol.MessagesResponse{}, err
	}
	ctx, cancel := b.ctx()
	defer cancel()
	resp, err := b.svc.Messages(ctx, in.StreamPrefix, shard, from, count)
	emptySlice(&resp.Messages)
	return resp, err
}

// shardParam parses :shardIndex, a decimal integer ≥ 0.
func (b *browse) shardParam(c *fiber.Ctx) (int, error) {
	raw := c.Params("shardIndex")
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 || strings.HasPrefix(raw, "+") {
		return 0, httpx.Invalid("shardIndex %q: must be an integer ≥ 0", httpx.Truncate(raw, 40))
	}
	return n, nil
}

// pageParams parses ?from= and ?count= of the messages route.
func (b *browse) pageParams(c *fiber.Ctx) (string, int, error) {
	from := strings.Clone(c.Query("from", "-"))
	if !protocol.IsStreamCursor(from) {
		return "", 0, httpx.Invalid("from %q: must be \"-\" (the start) or a stream entry id such as 1700000000000-0 (exclusive cursor: the id of the last message seen)", httpx.Truncate(from, 60))
	}
	count := DefaultBrowseCount
	if raw := c.Query("count"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > b.cfg.MaxBrowseCount {
			return "", 0, httpx.Invalid("count %q: must be an integer between 1 and %d (limits.browse-max-count)", httpx.Truncate(raw, 40), b.cfg.MaxBrowseCount)
		}
		count = n
	}
	if count > b.cfg.MaxBrowseCount {
		count = b.cfg.MaxBrowseCount
	}
	return from, count, nil
}
