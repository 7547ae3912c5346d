package memstore

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/redisstream/coordinator/persistence"
)

// Store is an in-memory persistence.Store. The zero value is not usable; use New.
type Store struct {
	mu          sync.Mutex
	now         func() time.Time
	streams     map[string]persistence.StreamRecord
	groups      map[persistence.GroupKey]*group
	nodes       map[string]*node
	live        map[persistence.GroupKey]int64
	instance    *persistence.Instance
	unavailable bool
	closed      bool
	writes      int64
	resharding  map[string]bool
	drivers     map[string]driverLease
	tokenGens   map[string]int64 // tokens.go
}

type group struct {
	activation int64
	revision   int64
	owner      string
	live       bool // activated and not deleted since
	meta       []byte
	events     []byte // recent-events record (GroupChange.Events)
	members    map[string][]byte
	fenced     []string // earlier owners not yet told of the takeover
	// handover, stored by the release of activation handoverEpoch at handoverAt.
	handover      []byte
	handoverEpoch int64
	handoverAt    time.Time
}

// dropHandover forgets a stored hand-over.
func (g *group) dropHandover() { g.handover, g.handoverEpoch, g.handoverAt = nil, 0, time.Time{} }

var _ persistence.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{
		now:     time.Now,
		streams: map[string]persistence.StreamRecord{},
		groups:  map[persistence.GroupKey]*group{},
		nodes:   map[string]*node{},
		live:    map[persistence.GroupKey]int64{},
	}
}

// SetUnavailable makes every call fail with persistence.ErrUnavailable (and
// apply nothing) while on; it simulates a Redis outage.
func (s *Store) SetUnavailable(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unavailable = on
}

// Flush drops everything, like FLUSHALL on Redis without persistence: tests
// use it to simulate a store that lost its data.
func (s *Store) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streams = map[string]persistence.StreamRecord{}
	s.groups = map[persistence.GroupKey]*group{}
	s.nodes = map[string]*node{}
	s.live = map[persistence.GroupKey]int64{}
	s.instance = nil
	s.tokenGens = nil
}

// SetNow replaces the store's clock (node record expiry, timestamps).
func (s *Store) SetNow(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// Writes is the number of successful mutating calls so far (CreateStream,
// UpdateStream, Activate, SaveGroup, DeleteGroup).
func (s *Store) Writes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

// check is called with s.mu held at the start of every call.
func (s *Store) check(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w: %w", op, persistence.ErrUnavailable, err)
	}
	if s.closed {
		return fmt.Errorf("%s: store closed: %w", op, persistence.ErrUnavailable)
	}
	if s.unavailable {
		return fmt.Errorf("%s: simulated outage: %w", op, persistence.ErrUnavailable)
	}
	return nil
}

// CreateStream implements persistence.Store.
func (s *Store) CreateStream(ctx context.Context, rec persistence.StreamRecord) (persistence.StreamRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	op := "create stream " + rec.StreamPrefix
	if err := s.check(ctx, op); err != nil {
		return persistence.StreamRecord{}, err
	}
	if _, ok := s.streams[rec.StreamPrefix]; ok {
		return persistence.StreamRecord{}, fmt.Errorf("%s: %w", op, persistence.ErrExists)
	}
	now := s.now()
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = now
	}
	if rec.UpdatedAt.IsZero() {
		rec.UpdatedAt = rec.CreatedAt
	}
	rec = normalize(rec)
	rec.Revision = 1
	s.streams[rec.StreamPrefix] = rec
	s.writes++
	return copyStream(rec), nil
}

// GetStream implements persistence.Store.
func (s *Store) GetStream(ctx context.Context, streamPrefix string) (persistence.StreamRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	op := "get stream " + streamPrefix
	if err := s.check(ctx, op); err != nil {
		return persistence.StreamRecord{}, err
	}
	rec, ok := s.streams[streamPrefix]
	if !ok {
		return persistence.StreamRecord{}, fmt.Errorf("%s: %w", op, persistence.ErrNotFound)
	}
	return copyStream(rec), nil
}

// ListStreams implements persistence.Store.
func (s *Store) ListStreams(ctx context.Context) ([]persistence.StreamRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "list streams"); err != nil {
		return nil, err
	}
	out := make([]persistence.StreamRecord, 0, len(s.streams))
	for _, rec := range s.streams {
		out = append(out, copyStream(rec))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StreamPrefix < out[j].StreamPrefix })
	return out, nil
}

// UpdateStream implements persistence.Store.
func (s *Store) UpdateStream(ctx context.Context, rec persistence.StreamRecord, expectedRevision int64) (persistence.StreamRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	op := "update stream " + rec.StreamPrefix
	if err := s.check(ctx, op); err != nil {
		return persistence.StreamRecord{}, err
	}
	cur, ok := s.streams[rec.StreamPrefix]
	if !ok {
		return persistence.StreamRecord{}, fmt.Errorf("%s: %w", op, persistence.ErrNotFound)
	}
	if cur.Revision != expectedRevision {
		return persistence.StreamRecord{}, fmt.Errorf("%s: revision is %d, expected %d: %w", op, cur.Revision, expectedRevision, persistence.ErrConflict)
	}
	if rec.MetadataVersion < cur.MetadataVersion {
		return persistence.StreamRecord{}, fmt.Errorf("%s: metadataVersion %d would go back from %d: %w", op, rec.MetadataVersion, cur.MetadataVersion, persistence.ErrConflict)
	}
	rec.CreatedAt, rec.CreatedBy = cur.CreatedAt, cur.CreatedBy
	if rec.UpdatedAt.IsZero() {
		rec.UpdatedAt = s.now()
	}
	rec = normalize(rec)
	rec.Revision = cur.Revision + 1
	s.streams[rec.StreamPrefix] = rec
	s.writes++
	return copyStream(rec), nil
}

// Ping implements persistence.Store.
func (s *Store) Ping(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.check(ctx, "ping")
}

// Close implements persistence.Store. Calls after Close fail with ErrUnavailable.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// normalize drops the monotonic clock reading and converts times to UTC, as a
// round trip through Redis would.
func normalize(rec persistence.StreamRecord) persistence.StreamRecord {
	rec.CreatedAt = rec.CreatedAt.Round(0).UTC()
	rec.UpdatedAt = rec.UpdatedAt.Round(0).UTC()
	rec.Extra = cloneBytes(rec.Extra)
	return rec
}

func copyStream(rec persistence.StreamRecord) persistence.StreamRecord {
	rec.Extra = cloneBytes(rec.Extra)
	return rec
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}
