package memstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

func TestProvisionerBrowseModel(t *testing.T) {
	ctx := context.Background()
	p := memstore.NewProvisioner()
	require.NoError(t, p.EnsureStreams(ctx, "o", 0, 2))
	require.NoError(t, p.EnsureGroup(ctx, "o", "g", 0, 1))
	p.AddEntries("o", 0,
		persistence.StreamEntry{Fields: map[string]string{"n": "1"}},
		persistence.StreamEntry{ID: "7-3", Fields: map[string]string{"n": "2"}},
		persistence.StreamEntry{Fields: map[string]string{"n": "3"}})
	require.Panics(t, func() { p.AddEntries("o", 0, persistence.StreamEntry{ID: "7-3"}) }, "ids must increase")
	p.SetConsumers("o", "g", 0, persistence.ShardConsumer{Name: "z", Pending: 1}, persistence.ShardConsumer{Name: "a"})

	es, more, err := p.ReadShard(ctx, "o", 0, "-", 2)
	require.NoError(t, err)
	require.True(t, more)
	require.Equal(t, []string{"1-0", "7-3"}, []string{es[0].ID, es[1].ID})
	es, more, err = p.ReadShard(ctx, "o", 0, "7", 5) // "7" = "7-0"
	require.NoError(t, err)
	require.False(t, more)
	require.Equal(t, []string{"7-3", "8-0"}, []string{es[0].ID, es[1].ID})
	_, _, err = p.ReadShard(ctx, "o", 0, "x", 5)
	require.ErrorIs(t, err, persistence.ErrInvalidStreamID)

	offs, err := p.ShardOffsets(ctx, "o", "g", []int{0, 1, 9})
	require.NoError(t, err)
	require.Len(t, offs, 3)
	require.Equal(t, int64(3), offs[0].Length)
	require.Equal(t, "8-0", offs[0].LastGeneratedID)
	require.Equal(t, []string{"a", "z"}, []string{offs[0].Consumers[0].Name, offs[0].Consumers[1].Name})
	require.True(t, offs[1].Exists)
	require.False(t, offs[1].GroupExists)
	require.False(t, offs[2].Exists)
	require.Equal(t, int64(-1), offs[2].MemoryUsage)

	p.SetError(persistence.ErrUnavailable)
	_, err = p.ShardOffsets(ctx, "o", "g", []int{0})
	require.ErrorIs(t, err, persistence.ErrUnavailable)
	_, _, err = p.ReadShard(ctx, "o", 0, "-", 1)
	require.ErrorIs(t, err, persistence.ErrUnavailable)
}
