package persistencetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

func renewal(owner string, ttl time.Duration) persistence.NodeRenewal {
	return persistence.NodeRenewal{Owner: owner, TTL: ttl,
		NewInstance: persistence.Instance{ID: "inst-" + owner, CreatedAt: time.UnixMilli(1_700_000_000_000)}}
}

func testRenewNode(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	st, err := s.RenewNode(ctx, renewal("n1/a", time.Minute))
	require.NoError(t, err)
	require.True(t, st.Created)
	require.True(t, st.InstanceCreated)
	require.Equal(t, "inst-n1/a", st.Instance.ID)
	require.Equal(t, int64(1_700_000_000_000), st.Instance.CreatedAt.UnixMilli())
	require.Equal(t, int64(1), st.Renews)
	require.Equal(t, int64(0), st.Takeovers)

	// A second node sees the first node's marker, not its own.
	st2, err := s.RenewNode(ctx, renewal("n2/b", time.Minute))
	require.NoError(t, err)
	require.False(t, st2.InstanceCreated)
	require.Equal(t, "inst-n1/a", st2.Instance.ID)

	alive, err := s.NotifyTakeover(ctx, "n1/a")
	require.NoError(t, err)
	require.True(t, alive)
	alive, err = s.NotifyTakeover(ctx, "n9/never")
	require.NoError(t, err)
	require.False(t, alive)
	ok, err := s.NodeAlive(ctx, "n9/never")
	require.NoError(t, err)
	require.False(t, ok)

	st, err = s.RenewNode(ctx, renewal("n1/a", time.Minute))
	require.NoError(t, err)
	require.False(t, st.Created)
	require.Equal(t, int64(2), st.Renews)
	require.Equal(t, int64(1), st.Takeovers)
}

func testNodeExpires(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	_, err := s.RenewNode(ctx, renewal("n1/a", 50*time.Millisecond))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		ok, err := s.NodeAlive(ctx, "n1/a")
		return err == nil && !ok
	}, 5*time.Second, 20*time.Millisecond)
	alive, err := s.NotifyTakeover(ctx, "n1/a")
	require.NoError(t, err)
	require.False(t, alive, "no record is re-created by a takeover notice")
	st, err := s.RenewNode(ctx, renewal("n1/a", time.Minute))
	require.NoError(t, err)
	require.True(t, st.Created)
	require.Equal(t, int64(1), st.Renews)
}

func testTakeoverList(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	a, err := s.Activate(ctx, gk, "A")
	require.NoError(t, err)
	require.Empty(t, a.Fenced)
	a2, err := s.Activate(ctx, gk, "A")
	require.NoError(t, err)
	require.Empty(t, a2.Fenced, "re-activation by the same owner fences nobody else")
	b, err := s.Activate(ctx, gk, "B")
	require.NoError(t, err)
	require.Equal(t, []string{"A"}, b.Fenced)
	// B never cleared (it died before telling A): C must tell both.
	c, err := s.Activate(ctx, gk, "C")
	require.NoError(t, err)
	require.Equal(t, []string{"A", "B"}, c.Fenced)
	require.ErrorIs(t, s.ClearTakeover(ctx, gk, b.ActivationEpoch), persistence.ErrFenced)
	require.NoError(t, s.ClearTakeover(ctx, gk, c.ActivationEpoch))
	d, err := s.Activate(ctx, gk, "D")
	require.NoError(t, err)
	require.Equal(t, []string{"C"}, d.Fenced)
	// A released activation fences nobody.
	require.NoError(t, s.ClearTakeover(ctx, gk, d.ActivationEpoch))
	require.NoError(t, s.ReleaseActivation(ctx, gk, d.ActivationEpoch-1, nil), "a stale release is a no-op")
	loaded, err := s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	require.Equal(t, "D", loaded.Owner)
	require.NoError(t, s.ReleaseActivation(ctx, gk, d.ActivationEpoch, nil))
	loaded, err = s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	require.Equal(t, "", loaded.Owner)
	e, err := s.Activate(ctx, gk, "E")
	require.NoError(t, err)
	require.Empty(t, e.Fenced)
	require.Equal(t, d.ActivationEpoch+1, e.ActivationEpoch, "release keeps the epoch counter")
}

func testLiveIndex(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	other := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "other"}
	a, err := s.Activate(ctx, gk, persistence.OwnerName("n1", "old"))
	require.NoError(t, err)
	require.NoError(t, s.MarkLive(ctx, gk, a.ActivationEpoch))
	o, err := s.Activate(ctx, other, persistence.OwnerName("n2", "x"))
	require.NoError(t, err)
	require.NoError(t, s.MarkLive(ctx, other, o.ActivationEpoch))

	// n2/x has no node record: both are orphans for n3.
	orphans, err := s.Orphans(ctx, "n3")
	require.NoError(t, err)
	require.Equal(t, []persistence.GroupKey{gk, other}, orphans)
	// Once n2/x and n1/old renew, only n1's own older incarnation counts for n1.
	_, err = s.RenewNode(ctx, renewal(persistence.OwnerName("n2", "x"), time.Minute))
	require.NoError(t, err)
	_, err = s.RenewNode(ctx, renewal(persistence.OwnerName("n1", "old"), time.Minute))
	require.NoError(t, err)
	orphans, err = s.Orphans(ctx, "n3")
	require.NoError(t, err)
	require.Empty(t, orphans)
	orphans, err = s.Orphans(ctx, "n1")
	require.NoError(t, err)
	require.Equal(t, []persistence.GroupKey{gk}, orphans)

	// An older activation cannot unmark a newer one's entry.
	require.NoError(t, s.UnmarkLive(ctx, gk, a.ActivationEpoch-1))
	orphans, err = s.Orphans(ctx, "n1")
	require.NoError(t, err)
	require.Equal(t, []persistence.GroupKey{gk}, orphans)
	require.NoError(t, s.UnmarkLive(ctx, gk, a.ActivationEpoch))
	orphans, err = s.Orphans(ctx, "n1")
	require.NoError(t, err)
	require.Empty(t, orphans)

	// A released group with an index entry is an orphan for everyone.
	require.NoError(t, s.ReleaseActivation(ctx, other, o.ActivationEpoch, nil))
	orphans, err = s.Orphans(ctx, "n3")
	require.NoError(t, err)
	require.Equal(t, []persistence.GroupKey{other}, orphans)
	// A deleted group is not swept.
	require.NoError(t, s.DeleteGroup(ctx, other, o.ActivationEpoch))
	orphans, err = s.Orphans(ctx, "n3")
	require.NoError(t, err)
	require.Empty(t, orphans)
}

func testBehind(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	_, err := s.SaveGroup(ctx, gk, 3, 0, persistence.GroupChange{Meta: []byte("x")})
	require.ErrorIs(t, err, persistence.ErrNotFound)
	require.ErrorIs(t, err, persistence.ErrBehind, "a group its activation saw is gone")
	a, err := s.Activate(ctx, gk, "A")
	require.NoError(t, err)
	_, err = s.SaveGroup(ctx, gk, a.ActivationEpoch+2, 0, persistence.GroupChange{Meta: []byte("x")})
	require.ErrorIs(t, err, persistence.ErrFenced)
	require.ErrorIs(t, err, persistence.ErrBehind)
	_, err = s.SaveGroup(ctx, gk, a.ActivationEpoch, 4, persistence.GroupChange{Meta: []byte("x")})
	require.ErrorIs(t, err, persistence.ErrConflict)
	require.ErrorIs(t, err, persistence.ErrBehind)
	err = s.CheckActivation(ctx, gk, a.ActivationEpoch+1)
	require.ErrorIs(t, err, persistence.ErrFenced)
	require.ErrorIs(t, err, persistence.ErrBehind)
	other := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "gone"}
	require.ErrorIs(t, s.CheckActivation(ctx, other, 2), persistence.ErrBehind)
	_, err = s.Activate(ctx, gk, "B")
	require.NoError(t, err)
	require.NotErrorIs(t, s.CheckActivation(ctx, gk, a.ActivationEpoch), persistence.ErrBehind)
	_, err = s.SaveGroup(ctx, gk, a.ActivationEpoch, 0, persistence.GroupChange{Meta: []byte("x")})
	require.ErrorIs(t, err, persistence.ErrFenced)
	require.NotErrorIs(t, err, persistence.ErrBehind, "an older activation is fenced, not a sign of data loss")
}
