package router

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/persistence"
)

// Store errors reach the HTTP front as the service's sentinels, so that
// api/ answers them with the right code (a revision conflict is the
// reference's 409 STATE_VERSION_CONFLICT).
func TestMapStoreErr(t *testing.T) {
	for _, tc := range []struct{ in, want error }{
		{fmt.Errorf("save: %w", persistence.ErrConflict), coordinator.ErrStateConflict},
		{fmt.Errorf("save: %w", persistence.ErrFenced), coordinator.ErrGroupMoving},
		{fmt.Errorf("save: %w", persistence.ErrUnavailable), coordinator.ErrUnavailable},
		{context.DeadlineExceeded, coordinator.ErrUnavailable},
	} {
		require.ErrorIs(t, StoreErr(tc.in), tc.want, "%v", tc.in)
	}
	require.NoError(t, StoreErr(nil))
	other := errors.New("boom")
	require.Equal(t, other, StoreErr(other))
}
