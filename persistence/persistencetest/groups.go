package persistencetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

var gk = persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "billing"}

func requireSnapshot(t *testing.T, want, got persistence.GroupSnapshot) {
	t.Helper()
	require.Equal(t, want.Key, got.Key)
	require.Equal(t, want.Revision, got.Revision, "revision")
	require.Equal(t, want.ActivationEpoch, got.ActivationEpoch, "activation epoch")
	require.Equal(t, want.Owner, got.Owner, "owner")
	require.Equal(t, want.Meta == nil, got.Meta == nil, "meta nil-ness")
	require.Equal(t, string(want.Meta), string(got.Meta), "meta")
	require.NotNil(t, got.Members, "members map must not be nil")
	require.Len(t, got.Members, len(want.Members))
	for id, rec := range want.Members {
		g, ok := got.Members[id]
		require.True(t, ok, "member %q missing", id)
		require.Equal(t, string(rec), string(g), "member %q", id)
	}
}

func testActivateNewGroup(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	snap, err := s.Activate(ctx, gk, "node-a")
	require.NoError(t, err)
	requireSnapshot(t, persistence.GroupSnapshot{Key: gk, ActivationEpoch: 1, Owner: "node-a", Members: map[string][]byte{}}, snap)

	loaded, err := s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	requireSnapshot(t, snap, loaded)

	snap2, err := s.Activate(ctx, gk, "node-b")
	require.NoError(t, err)
	require.Equal(t, int64(2), snap2.ActivationEpoch)
	require.Equal(t, "node-b", snap2.Owner)

	// LoadGroup does not take the group.
	loaded, err = s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	require.Equal(t, int64(2), loaded.ActivationEpoch)
}

func testActivateFencesOlder(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	a1, err := s.Activate(ctx, gk, "node-a")
	require.NoError(t, err)
	rev, err := s.SaveGroup(ctx, gk, a1.ActivationEpoch, 0, persistence.GroupChange{Meta: []byte(`{"v":1}`)})
	require.NoError(t, err)
	require.Equal(t, int64(1), rev)

	a2, err := s.Activate(ctx, gk, "node-b")
	require.NoError(t, err)
	require.Greater(t, a2.ActivationEpoch, a1.ActivationEpoch)
	require.Equal(t, int64(1), a2.Revision)
	require.Equal(t, `{"v":1}`, string(a2.Meta))

	// The old activation is fenced, even with the right revision.
	_, err = s.SaveGroup(ctx, gk, a1.ActivationEpoch, 1, persistence.GroupChange{Meta: []byte(`{"v":"stale"}`)})
	require.ErrorIs(t, err, persistence.ErrFenced)
	err = s.DeleteGroup(ctx, gk, a1.ActivationEpoch)
	require.ErrorIs(t, err, persistence.ErrFenced)
	// A future epoch is fenced too.
	_, err = s.SaveGroup(ctx, gk, a2.ActivationEpoch+1, 1, persistence.GroupChange{Meta: []byte(`x`)})
	require.ErrorIs(t, err, persistence.ErrFenced)

	rev, err = s.SaveGroup(ctx, gk, a2.ActivationEpoch, 1, persistence.GroupChange{Meta: []byte(`{"v":2}`)})
	require.NoError(t, err)
	require.Equal(t, int64(2), rev)
	loaded, err := s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	require.Equal(t, `{"v":2}`, string(loaded.Meta))
	require.Equal(t, "node-b", loaded.Owner)
}

func testRevisionConflict(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	a, err := s.Activate(ctx, gk, "n")
	require.NoError(t, err)
	_, err = s.SaveGroup(ctx, gk, a.ActivationEpoch, 0, persistence.GroupChange{Meta: []byte("1")})
	require.NoError(t, err)
	_, err = s.SaveGroup(ctx, gk, a.ActivationEpoch, 0, persistence.GroupChange{Meta: []byte("2")})
	require.ErrorIs(t, err, persistence.ErrConflict)
	_, err = s.SaveGroup(ctx, gk, a.ActivationEpoch, 5, persistence.GroupChange{Meta: []byte("2")})
	require.ErrorIs(t, err, persistence.ErrConflict)
	// Fencing is checked before the revision.
	_, err = s.SaveGroup(ctx, gk, a.ActivationEpoch-1, 0, persistence.GroupChange{Meta: []byte("2")})
	require.ErrorIs(t, err, persistence.ErrFenced)

	loaded, err := s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	require.Equal(t, "1", string(loaded.Meta))
	require.Equal(t, int64(1), loaded.Revision)
}

func testSaveLoadRoundTrip(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	a, err := s.Activate(ctx, gk, "node-a")
	require.NoError(t, err)
	binary := []byte{0, 1, 2, 0xff, 0xfe, '\n', '"'}
	rev, err := s.SaveGroup(ctx, gk, a.ActivationEpoch, 0, persistence.GroupChange{
		Meta:       []byte(`{"groupEpoch":3}`),
		PutMembers: map[string][]byte{"m1": []byte(`{"e":1}`), "m2": binary, "10.0.0.1-m0": []byte(`{}`), "empty": {}},
	})
	require.NoError(t, err)
	want := persistence.GroupSnapshot{Key: gk, Revision: rev, ActivationEpoch: a.ActivationEpoch, Owner: "node-a",
		Meta:    []byte(`{"groupEpoch":3}`),
		Members: map[string][]byte{"m1": []byte(`{"e":1}`), "m2": binary, "10.0.0.1-m0": []byte(`{}`), "empty": {}}}
	loaded, err := s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	requireSnapshot(t, want, loaded)

	// Meta nil keeps meta; put replaces; delete removes (missing ids ignored);
	// an id both put and deleted ends up deleted.
	rev, err = s.SaveGroup(ctx, gk, a.ActivationEpoch, rev, persistence.GroupChange{
		PutMembers:    map[string][]byte{"m1": []byte(`{"e":2}`), "m3": []byte(`{"e":3}`), "gone": []byte("x")},
		DeleteMembers: []string{"m2", "never-there", "gone"},
	})
	require.NoError(t, err)
	require.Equal(t, int64(2), rev)
	want.Revision = rev
	want.Members = map[string][]byte{"m1": []byte(`{"e":2}`), "m3": []byte(`{"e":3}`), "10.0.0.1-m0": []byte(`{}`), "empty": {}}
	loaded, err = s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	requireSnapshot(t, want, loaded)

	// Empty (non-nil) meta is stored as empty, not as "unchanged".
	rev, err = s.SaveGroup(ctx, gk, a.ActivationEpoch, rev, persistence.GroupChange{Meta: []byte{}})
	require.NoError(t, err)
	want.Revision, want.Meta = rev, []byte{}
	loaded, err = s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	requireSnapshot(t, want, loaded)

	// A new activation sees everything.
	a2, err := s.Activate(ctx, gk, "node-b")
	require.NoError(t, err)
	want.ActivationEpoch, want.Owner = a2.ActivationEpoch, "node-b"
	requireSnapshot(t, want, a2)

	// Returned snapshots are copies.
	a2.Members["m1"][0] = 'X'
	loaded, err = s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	require.Equal(t, `{"e":2}`, string(loaded.Members["m1"]))
}

func testEmptyChange(t *testing.T, s persistence.Store) {
	// The shell never saves an empty change (steady state writes nothing);
	// stores accept one as a fenced, revision-checked no-op that bumps the revision.
	ctx := context.Background()
	a, err := s.Activate(ctx, gk, "n")
	require.NoError(t, err)
	rev, err := s.SaveGroup(ctx, gk, a.ActivationEpoch, 0, persistence.GroupChange{})
	require.NoError(t, err)
	require.Equal(t, int64(1), rev)
	loaded, err := s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	require.Nil(t, loaded.Meta)
	require.Empty(t, loaded.Members)
	require.True(t, persistence.GroupChange{}.IsEmpty())
}

func testUnknownGroup(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	_, err := s.LoadGroup(ctx, gk)
	require.ErrorIs(t, err, persistence.ErrNotFound)
	_, err = s.SaveGroup(ctx, gk, 1, 0, persistence.GroupChange{Meta: []byte("x")})
	require.ErrorIs(t, err, persistence.ErrNotFound)
	err = s.DeleteGroup(ctx, gk, 1)
	require.ErrorIs(t, err, persistence.ErrNotFound)
	groups, err := s.ListGroups(ctx, "")
	require.NoError(t, err)
	require.Empty(t, groups)
}

func testListGroupsSorted(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	keys := []persistence.GroupKey{
		{StreamPrefix: "payments", ConsumerGroup: "z"},
		{StreamPrefix: "orders", ConsumerGroup: "shipping"},
		{StreamPrefix: "orders", ConsumerGroup: "billing"},
		{StreamPrefix: "orders-eu", ConsumerGroup: "a"},
		{StreamPrefix: "payments", ConsumerGroup: "a"},
	}
	for _, k := range keys {
		_, err := s.Activate(ctx, k, "n")
		require.NoError(t, err)
	}
	all, err := s.ListGroups(ctx, "")
	require.NoError(t, err)
	require.Equal(t, []persistence.GroupKey{
		{StreamPrefix: "orders", ConsumerGroup: "billing"},
		{StreamPrefix: "orders", ConsumerGroup: "shipping"},
		{StreamPrefix: "orders-eu", ConsumerGroup: "a"},
		{StreamPrefix: "payments", ConsumerGroup: "a"},
		{StreamPrefix: "payments", ConsumerGroup: "z"},
	}, all)
	orders, err := s.ListGroups(ctx, "orders")
	require.NoError(t, err)
	require.Equal(t, []persistence.GroupKey{
		{StreamPrefix: "orders", ConsumerGroup: "billing"},
		{StreamPrefix: "orders", ConsumerGroup: "shipping"},
	}, orders)
	none, err := s.ListGroups(ctx, "nope")
	require.NoError(t, err)
	require.Empty(t, none)
}

func testDeleteThenReactivate(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	a1, err := s.Activate(ctx, gk, "n")
	require.NoError(t, err)
	a2, err := s.Activate(ctx, gk, "n")
	require.NoError(t, err)
	rev, err := s.SaveGroup(ctx, gk, a2.ActivationEpoch, 0, persistence.GroupChange{
		Meta: []byte("meta"), PutMembers: map[string][]byte{"m": []byte("r")}})
	require.NoError(t, err)

	require.ErrorIs(t, s.DeleteGroup(ctx, gk, a1.ActivationEpoch), persistence.ErrFenced)
	require.NoError(t, s.DeleteGroup(ctx, gk, a2.ActivationEpoch))

	_, err = s.LoadGroup(ctx, gk)
	require.ErrorIs(t, err, persistence.ErrNotFound)
	groups, err := s.ListGroups(ctx, "")
	require.NoError(t, err)
	require.Empty(t, groups)
	_, err = s.SaveGroup(ctx, gk, a2.ActivationEpoch, rev, persistence.GroupChange{Meta: []byte("x")})
	require.ErrorIs(t, err, persistence.ErrNotFound, "save after delete needs a new activation")
	require.ErrorIs(t, s.DeleteGroup(ctx, gk, a2.ActivationEpoch), persistence.ErrNotFound)

	a3, err := s.Activate(ctx, gk, "m")
	require.NoError(t, err)
	require.Greater(t, a3.ActivationEpoch, a2.ActivationEpoch, "activation epoch regressed after re-creation")
	require.GreaterOrEqual(t, a3.Revision, rev, "revision regressed after re-creation")
	require.Nil(t, a3.Meta)
	require.Empty(t, a3.Members)
	groups, err = s.ListGroups(ctx, "orders")
	require.NoError(t, err)
	require.Equal(t, []persistence.GroupKey{gk}, groups)
	_, err = s.SaveGroup(ctx, gk, a3.ActivationEpoch, a3.Revision, persistence.GroupChange{Meta: []byte("new")})
	require.NoError(t, err)
}

func testPing(t *testing.T, s persistence.Store) {
	require.NoError(t, s.Ping(context.Background()))
}

func testCheckActivation(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	require.ErrorIs(t, s.CheckActivation(ctx, gk, 1), persistence.ErrFenced, "never activated")
	first, err := s.Activate(ctx, gk, "node-a")
	require.NoError(t, err)
	require.NoError(t, s.CheckActivation(ctx, gk, first.ActivationEpoch))
	second, err := s.Activate(ctx, gk, "node-b")
	require.NoError(t, err)
	require.ErrorIs(t, s.CheckActivation(ctx, gk, first.ActivationEpoch), persistence.ErrFenced, "older activation")
	require.NoError(t, s.CheckActivation(ctx, gk, second.ActivationEpoch))
	require.NoError(t, s.DeleteGroup(ctx, gk, second.ActivationEpoch))
	require.ErrorIs(t, s.CheckActivation(ctx, gk, second.ActivationEpoch), persistence.ErrFenced, "deleted group")
}
