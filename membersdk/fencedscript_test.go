package membersdk

import (
	"context"
	"sync"
	"testing"

	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

// The script acker acknowledges from the pool while the fence names the
// member at the token held, and refuses (nothing acknowledged) once the
// owner or the token moved on.
func TestFencedScriptAckerChecksOwnerAndToken(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	key := protocol.StreamKey(testStream, 0)
	fk := fence.Key(key, testGroup)
	require.NoError(t, rc.HSet(ctx, fk, "owner", "m0", "token", 4).Err())
	ids := pendingIDs(t, rc, 4)

	a := NewFencedScriptAcker(rc, key, testGroup, "m0", 4)
	n, err := a.Ack(ctx, ids[:2]...)
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	n, err = a.Ack(ctx)
	require.NoError(t, err)
	require.Zero(t, n)

	_, err = NewFencedScriptAcker(rc, key, testGroup, "m1", 4).Ack(ctx, ids[2])
	require.ErrorIs(t, err, ErrFenced, "another member at the same token")
	_, err = NewFencedScriptAcker(rc, key, testGroup, "m0", 3).Ack(ctx, ids[2])
	require.ErrorIs(t, err, ErrFenced, "an older token")
	require.NoError(t, rc.HSet(ctx, fk, "owner", "m1", "token", 5).Err())
	_, err = a.Ack(ctx, ids[2:]...)
	require.ErrorIs(t, err, ErrFenced, "the shard moved on")
	require.Equal(t, int64(2), pendingCount(t, rc, 0), "nothing acknowledged after a refusal")
	require.NoError(t, a.Close(ctx), "Close does nothing on a script acker")
}

// Unfenced (token 0): acknowledges while no fence exists, refused once one
// appears; one acker is safe for concurrent use.
func TestFencedScriptAckerUnfencedAndConcurrent(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	key := protocol.StreamKey(testStream, 0)
	ids := pendingIDs(t, rc, 9)
	a := NewFencedScriptAcker(rc, key, testGroup, "m0", 0)
	var wg sync.WaitGroup
	for _, id := range ids[:8] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := a.Ack(ctx, id)
			require.NoError(t, err)
			require.Equal(t, int64(1), n)
		}()
	}
	wg.Wait()
	require.Equal(t, int64(1), pendingCount(t, rc, 0))
	require.NoError(t, rc.HSet(ctx, fence.Key(key, testGroup), "owner", "m0", "token", 1).Err())
	_, err := a.Ack(ctx, ids[8])
	require.ErrorIs(t, err, ErrFenced)
	require.Equal(t, int64(1), pendingCount(t, rc, 0))
}
