package persistencetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

// testEvents: the recent-events record is saved with a change, kept by
// changes that carry none, returned by LoadGroup and by every later
// Activate (it survives a move to another owner), and dropped with the
// group.
func testEvents(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	blob := []byte(`[{"memberId":"a\nb","state":"FENCED"}]` + "\x00\xff") // opaque, byte for byte

	a, err := s.Activate(ctx, gk, "A")
	require.NoError(t, err)
	require.Nil(t, a.Events, "a new group has none")
	rev, err := s.SaveGroup(ctx, gk, a.ActivationEpoch, a.Revision, persistence.GroupChange{Meta: []byte("m"), Events: blob})
	require.NoError(t, err)
	rev, err = s.SaveGroup(ctx, gk, a.ActivationEpoch, rev, persistence.GroupChange{PutMembers: map[string][]byte{"x": []byte("1")}})
	require.NoError(t, err)
	require.False(t, (persistence.GroupChange{Events: blob}).IsEmpty(), "a change with events only writes something")
	snap, err := s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	require.Equal(t, blob, snap.Events, "kept by a change without events")
	require.Equal(t, rev, snap.Revision)

	b, err := s.Activate(ctx, gk, "B") // another node takes the group over
	require.NoError(t, err)
	require.Equal(t, blob, b.Events, "the next activation reads them back")
	require.NoError(t, s.DeleteGroup(ctx, gk, b.ActivationEpoch))
	c, err := s.Activate(ctx, gk, "C")
	require.NoError(t, err)
	require.Nil(t, c.Events, "a deleted group's events are gone")
}
