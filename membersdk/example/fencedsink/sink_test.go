package fencedsink

import (
	"context"
	"testing"

	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/stretchr/testify/require"
)

func TestSinkRefusesAnOlderToken(t *testing.T) {
	t.Parallel()
	rc := redistest.Start(t).Client()
	ctx := context.Background()
	s := &Sink{RC: rc, Key: "{sink}:data", TokensKey: "{sink}:tokens"}

	require.NoError(t, s.Write(ctx, 3, 5, "a", "old owner")) // owner with token 5
	require.NoError(t, s.Write(ctx, 3, 6, "a", "new owner")) // the shard moved: token 6
	err := s.Write(ctx, 3, 5, "a", "stale write")            // the old owner wakes up
	require.ErrorIs(t, err, ErrStaleWriter)
	require.NoError(t, s.Write(ctx, 4, 1, "b", "another shard")) // tokens are per shard

	got, err := rc.HGetAll(ctx, "{sink}:data").Result()
	require.NoError(t, err)
	require.Equal(t, map[string]string{"a": "new owner", "b": "another shard"}, got)
	tokens, err := rc.HGetAll(ctx, "{sink}:tokens").Result()
	require.NoError(t, err)
	require.Equal(t, map[string]string{"3": "6", "4": "1"}, tokens)
}
