package memstore

import (
	"context"
	"maps"

	"github.com/redisstream/coordinator/persistence"
)

var _ persistence.TokenGenerations = (*Store)(nil)

// TokenGenerations implements persistence.TokenGenerations.
func (s *Store) TokenGenerations(ctx context.Context) (map[string]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "token generations"); err != nil {
		return nil, err
	}
	return maps.Clone(s.tokenGens), nil
}

// RevokeTokens implements persistence.TokenGenerations.
func (s *Store) RevokeTokens(ctx context.Context, user string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "revoke tokens"); err != nil {
		return 0, err
	}
	if s.tokenGens == nil {
		s.tokenGens = map[string]int64{}
	}
	s.tokenGens[user]++
	s.writes++
	return s.tokenGens[user], nil
}
