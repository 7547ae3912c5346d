package memstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
	"github.com/redisstream/coordinator/persistence/persistencetest"
)

func TestConformance(t *testing.T) {
	persistencetest.Run(t, func(t *testing.T) persistence.Store { return memstore.New() })
}

func TestUnavailableAndWrites(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	key := persistence.GroupKey{StreamPrefix: "o", ConsumerGroup: "g"}
	a, err := s.Activate(ctx, key, "n")
	require.NoError(t, err)
	require.Equal(t, int64(1), s.Writes())
	_, err = s.LoadGroup(ctx, key)
	require.NoError(t, err)
	require.Equal(t, int64(1), s.Writes(), "reads are not writes")

	s.SetUnavailable(true)
	_, err = s.SaveGroup(ctx, key, a.ActivationEpoch, 0, persistence.GroupChange{Meta: []byte("x")})
	require.ErrorIs(t, err, persistence.ErrUnavailable)
	require.ErrorIs(t, s.Ping(ctx), persistence.ErrUnavailable)
	s.SetUnavailable(false)
	snap, err := s.LoadGroup(ctx, key)
	require.NoError(t, err)
	require.Zero(t, snap.Revision, "a failed write must apply nothing")
	require.Equal(t, int64(1), s.Writes())

	require.NoError(t, s.Close())
	require.ErrorIs(t, s.Ping(ctx), persistence.ErrUnavailable)
}

func TestProvisioner(t *testing.T) {
	ctx := context.Background()
	p := memstore.NewProvisioner()
	require.NoError(t, p.EnsureStreams(ctx, "o", 0, 2))
	require.True(t, p.StreamExists("o:1"))
	require.False(t, p.StreamExists("o:2"))
	require.NoError(t, p.EnsureGroup(ctx, "o", "g", 0, 3))
	require.True(t, p.GroupExists("o:2", "g"))

	info, err := p.ShardInfo(ctx, "o", "g", 1)
	require.NoError(t, err)
	require.True(t, info.Exists && info.GroupExists)
	require.Equal(t, "o:1", info.StreamKey)

	p.SetShardInfo("o", "g", 1, persistence.ShardInfo{Length: 9, LastGeneratedID: "9-0", Pending: 2, Lag: 3, LastDeliveredID: "7-0"})
	info, err = p.ShardInfo(ctx, "o", "g", 1)
	require.NoError(t, err)
	require.Equal(t, persistence.ShardInfo{Shard: 1, StreamKey: "o:1", Exists: true, Length: 9, LastGeneratedID: "9-0",
		GroupExists: true, Pending: 2, Lag: 3, LastDeliveredID: "7-0"}, info)

	info, err = p.ShardInfo(ctx, "o", "g", 5)
	require.NoError(t, err)
	require.False(t, info.Exists)
	require.Equal(t, int64(-1), info.Lag)

	p.SetError(persistence.ErrUnavailable)
	require.ErrorIs(t, p.EnsureStreams(ctx, "o", 0, 1), persistence.ErrUnavailable)
	p.SetError(nil)

	calls := p.Calls()
	require.Len(t, calls, 6)
	require.Equal(t, memstore.Call{Op: "EnsureGroup", StreamPrefix: "o", Group: "g", From: 0, To: 3}, calls[1])
}

func TestFencesConformance(t *testing.T) {
	persistencetest.RunFences(t, func(t *testing.T) persistence.Fences { return memstore.NewProvisioner() })
}

func TestFenceErrorInjection(t *testing.T) {
	p := memstore.NewProvisioner()
	p.SetFenceError(persistence.ErrUnavailable)
	err := p.SetFences(context.Background(), "o", "g", []persistence.FenceUpdate{{Shard: 0, Owner: "A"}})
	require.ErrorIs(t, err, persistence.ErrUnavailable)
	f := p.Fence("o", "g", 0)
	require.Zero(t, f.Token, "a failed fence write applies nothing")
	require.Empty(t, p.FenceLog())
}
