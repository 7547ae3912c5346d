package persistencetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

func testStreamDelete(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	require.ErrorIs(t, s.DeleteStream(ctx, "orders", 1), persistence.ErrNotFound)
	created, err := s.CreateStream(ctx, sampleStream("orders"))
	require.NoError(t, err)
	_, err = s.CreateStream(ctx, sampleStream("payments"))
	require.NoError(t, err)
	upd, err := s.UpdateStream(ctx, created, 1)
	require.NoError(t, err)

	// A stale revision deletes nothing.
	require.ErrorIs(t, s.DeleteStream(ctx, "orders", 1), persistence.ErrConflict)
	loaded, err := s.GetStream(ctx, "orders")
	require.NoError(t, err)
	requireStreamEqual(t, upd, loaded)

	require.NoError(t, s.DeleteStream(ctx, "orders", upd.Revision))
	_, err = s.GetStream(ctx, "orders")
	require.ErrorIs(t, err, persistence.ErrNotFound)
	list, err := s.ListStreams(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, "payments", list[0].StreamPrefix, "other streams are kept")
	require.ErrorIs(t, s.DeleteStream(ctx, "orders", upd.Revision), persistence.ErrNotFound)

	// The prefix can be created again, from revision 1.
	again, err := s.CreateStream(ctx, sampleStream("orders"))
	require.NoError(t, err)
	require.Equal(t, int64(1), again.Revision)
}
