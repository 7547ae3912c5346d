package memstore

import (
	"context"
	"fmt"

	"github.com/redisstream/coordinator/persistence"
)

// DeleteStream implements persistence.Store.
func (s *Store) DeleteStream(ctx context.Context, streamPrefix string, expectedRevision int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	op := "delete stream " + streamPrefix
	if err := s.check(ctx, op); err != nil {
		return err
	}
	cur, ok := s.streams[streamPrefix]
	if !ok {
		return fmt.Errorf("%s: %w", op, persistence.ErrNotFound)
	}
	if cur.Revision != expectedRevision {
		return fmt.Errorf("%s: revision is %d, expected %d: %w", op, cur.Revision, expectedRevision, persistence.ErrConflict)
	}
	delete(s.streams, streamPrefix)
	s.writes++
	return nil
}
