package redisstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/persistence"
)

// deleteStreamScript: KEYS stream; ARGV expectedRevision. Deletes the record
// iff its revision matches.
var deleteStreamScript = redis.NewScript(`
local h = redis.call('HMGET', KEYS[1], 'format', 'revision')
if not h[2] then return {'NOTFOUND'} end
if h[1] ~= '1' then return {'FORMAT', tostring(h[1])} end
if h[2] ~= ARGV[1] then return {'CONFLICT', h[2]} end
redis.call('DEL', KEYS[1])
return {'OK'}
`)

// DeleteStream implements persistence.Store. The index entry is removed after
// the record (the index is a superset: ListStreams skips entries without one).
func (s *Store) DeleteStream(ctx context.Context, streamPrefix string, expectedRevision int64) error {
	op := "delete stream " + streamPrefix
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	status, rest, err := s.runDurable(ctx, op, deleteStreamScript, []string{s.k.stream(streamPrefix)}, strconv.FormatInt(expectedRevision, 10))
	if err != nil {
		return err
	}
	switch status {
	case "OK":
		if err := s.c.SRem(ctx, s.k.streams(), streamPrefix).Err(); err != nil {
			return mapErr(op, err)
		}
		return nil
	case "NOTFOUND":
		return fmt.Errorf("%s: %w", op, persistence.ErrNotFound)
	case "CONFLICT":
		return fmt.Errorf("%s: revision is %s, expected %d: %w", op, asString(rest[0]), expectedRevision, persistence.ErrConflict)
	case "FORMAT":
		return formatErr(op, asString(rest[0]))
	}
	return fmt.Errorf("%s: unexpected script status %q", op, status)
}
