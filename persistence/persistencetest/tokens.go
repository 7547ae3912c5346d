package persistencetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

// testTokenGenerations: generations start absent (0), each revocation bumps
// one user's by one, others are untouched, and a cancelled context fails
// unavailable. Stores that do not keep token generations skip it.
func testTokenGenerations(t *testing.T, s persistence.Store) {
	tg, ok := s.(persistence.TokenGenerations)
	if !ok {
		t.Skip("the store does not implement persistence.TokenGenerations")
	}
	ctx := context.Background()
	gens, err := tg.TokenGenerations(ctx)
	require.NoError(t, err)
	require.Empty(t, gens)
	for want := int64(1); want <= 2; want++ {
		n, err := tg.RevokeTokens(ctx, "alice")
		require.NoError(t, err)
		require.Equal(t, want, n)
	}
	n, err := tg.RevokeTokens(ctx, "bob:odd name")
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	gens, err = tg.TokenGenerations(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"alice": 2, "bob:odd name": 1}, gens)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = tg.RevokeTokens(cancelled, "alice")
	require.ErrorIs(t, err, persistence.ErrUnavailable)
	_, err = tg.TokenGenerations(cancelled)
	require.ErrorIs(t, err, persistence.ErrUnavailable)
}
