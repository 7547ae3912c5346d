package memstore

import (
	"context"
	"slices"
	"time"
)

type driverLease struct {
	owner string
	until time.Time
}

// MarkResharding implements persistence.Reshards.
func (s *Store) MarkResharding(ctx context.Context, streamPrefix string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "mark resharding"); err != nil {
		return err
	}
	if s.resharding == nil {
		s.resharding = map[string]bool{}
	}
	s.resharding[streamPrefix] = true
	return nil
}

// UnmarkResharding implements persistence.Reshards.
func (s *Store) UnmarkResharding(ctx context.Context, streamPrefix string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "unmark resharding"); err != nil {
		return err
	}
	delete(s.resharding, streamPrefix)
	return nil
}

// ReshardingStreams implements persistence.Reshards.
func (s *Store) ReshardingStreams(ctx context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "list resharding streams"); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(s.resharding))
	for p := range s.resharding {
		out = append(out, p)
	}
	slices.Sort(out)
	return out, nil
}

// AcquireDriver implements persistence.Reshards.
func (s *Store) AcquireDriver(ctx context.Context, streamPrefix, owner string, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "acquire driver lease"); err != nil {
		return false, err
	}
	now := s.now()
	if l, ok := s.drivers[streamPrefix]; ok && l.owner != owner && now.Before(l.until) {
		return false, nil
	}
	if s.drivers == nil {
		s.drivers = map[string]driverLease{}
	}
	s.drivers[streamPrefix] = driverLease{owner: owner, until: now.Add(ttl)}
	return true, nil
}

// ReleaseDriver implements persistence.Reshards.
func (s *Store) ReleaseDriver(ctx context.Context, streamPrefix, owner string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "release driver lease"); err != nil {
		return err
	}
	if l, ok := s.drivers[streamPrefix]; ok && l.owner == owner {
		delete(s.drivers, streamPrefix)
	}
	return nil
}
