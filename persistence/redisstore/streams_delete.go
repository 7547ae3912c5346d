package redisstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore/lua"
)

// DeleteStream implements persistence.Store. The index entry is removed after
// the record (the index is a superset: ListStreams skips entries without one).
func (s *Store) DeleteStream(ctx context.Context, streamPrefix string, expectedRevision int64) error {
	op := "delete stream " + streamPrefix
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	status, rest, err := s.runDurable(ctx, op, lua.DeleteStream, []string{s.k.stream(streamPrefix)}, strconv.FormatInt(expectedRevision, 10))
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
