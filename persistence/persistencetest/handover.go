package persistencetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

// testHandover: a release stores a hand-over that only the directly following activation
// gets (once), with its age on the store's clock.
func testHandover(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	blob := []byte("{\"m\":{\"a\\nb\":1}}\n\x00\xff") // opaque bytes, kept byte for byte

	a, err := s.Activate(ctx, gk, "A")
	require.NoError(t, err)
	require.Nil(t, a.Handover, "a first activation finds no hand-over")
	require.NoError(t, s.ReleaseActivation(ctx, gk, a.ActivationEpoch, blob))
	time.Sleep(10 * time.Millisecond)
	b, err := s.Activate(ctx, gk, "B")
	require.NoError(t, err)
	require.Equal(t, blob, b.Handover, "the next activation gets the hand-over")
	require.GreaterOrEqual(t, b.HandoverAge, 10*time.Millisecond, "age on the store's clock")
	require.Less(t, b.HandoverAge, time.Minute)
	require.Empty(t, b.Fenced, "a released activation fences nobody")

	// B crashes (no release): C gets nothing, although the release of A is still the last one.
	c, err := s.Activate(ctx, gk, "C")
	require.NoError(t, err)
	require.Nil(t, c.Handover, "consumed by B, and B did not release")

	// A stale release stores nothing and does not replace the current one.
	require.NoError(t, s.ReleaseActivation(ctx, gk, c.ActivationEpoch, []byte("c")))
	require.NoError(t, s.ReleaseActivation(ctx, gk, c.ActivationEpoch-1, []byte("stale")))
	d, err := s.Activate(ctx, gk, "D")
	require.NoError(t, err)
	require.Equal(t, []byte("c"), d.Handover)

	// A release without hand-over clears an older one.
	require.NoError(t, s.ReleaseActivation(ctx, gk, d.ActivationEpoch, []byte("d")))
	require.NoError(t, s.ReleaseActivation(ctx, gk, d.ActivationEpoch, nil))
	e, err := s.Activate(ctx, gk, "E")
	require.NoError(t, err)
	require.Nil(t, e.Handover)

	// A hand-over left by a release that another activation followed is never returned.
	require.NoError(t, s.ReleaseActivation(ctx, gk, e.ActivationEpoch, []byte("e")))
	f, err := s.Activate(ctx, gk, "F")
	require.NoError(t, err)
	require.Equal(t, []byte("e"), f.Handover)
	g, err := s.Activate(ctx, gk, "G")
	require.NoError(t, err)
	require.Nil(t, g.Handover)

	// Deleting the group drops a hand-over its last activation left.
	require.NoError(t, s.ReleaseActivation(ctx, gk, g.ActivationEpoch, []byte("g")))
	require.NoError(t, s.DeleteGroup(ctx, gk, g.ActivationEpoch))
	h, err := s.Activate(ctx, gk, "H")
	require.NoError(t, err)
	require.Nil(t, h.Handover)

	// Reading the group does not consume the hand-over.
	require.NoError(t, s.ReleaseActivation(ctx, gk, h.ActivationEpoch, []byte("h")))
	_, err = s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	i, err := s.Activate(ctx, gk, "I")
	require.NoError(t, err)
	require.Equal(t, []byte("h"), i.Handover)
}
