package membersdk

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

// pendingIDs appends n entries to shard 0 and reads them into the test
// group's pending list under consumer "m0".
func pendingIDs(t *testing.T, rc *redis.Client, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = xadd(t, rc, 0, "k", "v")
	}
	require.NoError(t, rc.XReadGroup(context.Background(), &redis.XReadGroupArgs{
		Group: testGroup, Consumer: "m0", Streams: []string{protocol.StreamKey(testStream, 0), ">"}, Count: int64(n),
	}).Err())
	return ids
}

func TestFencedAckerAcknowledgesWhileTheFenceHolds(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	key := protocol.StreamKey(testStream, 0)
	require.NoError(t, rc.HSet(ctx, fence.Key(key, testGroup), "owner", "m0", "token", 4).Err())
	ids := pendingIDs(t, rc, 5)
	conn := rc.Conn()
	defer conn.Close()
	a := NewFencedAcker(conn, key, testGroup, 4)
	n, err := a.Ack(ctx, ids[:2]...)
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	n, err = a.Ack(ctx, ids[2:]...)
	require.NoError(t, err, "re-armed after the first EXEC")
	require.Equal(t, int64(3), n)
	require.Equal(t, int64(0), pendingCount(t, rc, 0))
	n, err = a.Ack(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
}

// The fence moves while the acker is armed (its WATCH active): EXEC is
// aborted and nothing is acknowledged; later acks stay refused.
func TestFencedAckerIsRefusedWhenTheFenceMovesWhileArmed(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	key := protocol.StreamKey(testStream, 0)
	fk := fence.Key(key, testGroup)
	require.NoError(t, rc.HSet(ctx, fk, "owner", "m0", "token", 4).Err())
	ids := pendingIDs(t, rc, 3)
	conn := rc.Conn()
	defer conn.Close()
	a := NewFencedAcker(conn, key, testGroup, 4)
	_, err := a.Ack(ctx, ids[0])
	require.NoError(t, err) // armed now
	// The coordinator hands the shard over: owner and token move on.
	require.NoError(t, rc.HSet(ctx, fk, "owner", "m1", "token", 5).Err())
	_, err = a.Ack(ctx, ids[1])
	require.ErrorIs(t, err, ErrFenced)
	_, err = a.Ack(ctx, ids[2])
	require.ErrorIs(t, err, ErrFenced, "re-arming sees the new token")
	require.Equal(t, int64(2), pendingCount(t, rc, 0), "nothing acknowledged after the fence moved")

	// Even a write that puts the same values back counts: the fence was
	// written since it was checked.
	b := NewFencedAcker(conn, key, testGroup, 5)
	_, err = b.Ack(ctx, ids[1])
	require.NoError(t, err)
	require.NoError(t, rc.HSet(ctx, fk, "token", 5).Err())
	_, err = b.Ack(ctx, ids[2])
	require.ErrorIs(t, err, ErrFenced)
	require.Equal(t, int64(1), pendingCount(t, rc, 0))
}

// The fence moved before the acker first armed: refused at once.
func TestFencedAckerIsRefusedWhenTheTokenIsNotHeld(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	key := protocol.StreamKey(testStream, 0)
	require.NoError(t, rc.HSet(ctx, fence.Key(key, testGroup), "owner", "", "token", 9).Err())
	ids := pendingIDs(t, rc, 1)
	conn := rc.Conn()
	defer conn.Close()
	_, err := NewFencedAcker(conn, key, testGroup, 8).Ack(ctx, ids...)
	require.ErrorIs(t, err, ErrFenced)
	require.Equal(t, int64(1), pendingCount(t, rc, 0))
}

// Unfenced (token 0): acknowledges while no fence exists, refused once one
// appears (a coordinator that started fencing).
func TestFencedAckerUnfenced(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	key := protocol.StreamKey(testStream, 0)
	ids := pendingIDs(t, rc, 2)
	conn := rc.Conn()
	defer conn.Close()
	a := NewFencedAcker(conn, key, testGroup, 0)
	n, err := a.Ack(ctx, ids[0])
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	require.NoError(t, rc.HSet(ctx, fence.Key(key, testGroup), "owner", "m9", "token", 1).Err())
	_, err = a.Ack(ctx, ids[1])
	require.ErrorIs(t, err, ErrFenced)
	require.Equal(t, int64(1), pendingCount(t, rc, 0))
}

// Close drops the WATCH, so a transaction run later on the same connection
// (back in the pool) is not aborted by a fence write.
func TestFencedAckerCloseDropsTheWatch(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	key := protocol.StreamKey(testStream, 0)
	fk := fence.Key(key, testGroup)
	require.NoError(t, rc.HSet(ctx, fk, "owner", "m0", "token", 1).Err())
	ids := pendingIDs(t, rc, 1)
	conn := rc.Conn()
	defer conn.Close()
	a := NewFencedAcker(conn, key, testGroup, 1)
	_, err := a.Ack(ctx, ids...)
	require.NoError(t, err)
	require.NoError(t, a.Close(ctx))
	require.NoError(t, rc.HSet(ctx, fk, "token", 2).Err())
	res, err := conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "other", "x", 0)
		return nil
	})
	require.NoError(t, err, "no WATCH left on the connection")
	require.Len(t, res, 1)
}

// A connection on which Redis refuses MULTI (an ACL without it): the acker
// finds out when it arms, before any XACK is sent, and acknowledges
// nothing; a Consumer then acknowledges through the fence script.
func TestFencedAckerWithoutTransactions(t *testing.T) {
	t.Parallel()
	base := setupRedis(t, 1)
	ctx := context.Background()
	require.NoError(t, base.Do(ctx, "acl", "setuser", "notx", "on", ">pw", "~*", "&*", "+@all", "-multi").Err())
	rc := redis.NewClient(&redis.Options{Addr: base.Options().Addr, Username: "notx", Password: "pw"})
	t.Cleanup(func() { _ = rc.Close() })
	key := protocol.StreamKey(testStream, 0)
	ids := pendingIDs(t, base, 2)

	conn := rc.Conn()
	_, err := NewFencedAcker(conn, key, testGroup, 0).Ack(ctx, ids[0])
	require.ErrorIs(t, err, ErrTxRefused)
	require.Equal(t, int64(2), pendingCount(t, base, 0), "nothing acknowledged")
	require.NoError(t, conn.Close())

	f := newFakeCoord(t, 1)
	f.useRedis(base)
	f.setTarget("m0", 0)
	var ev events
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	xadd(t, base, 0, "k", "v")
	eventually(t, func() bool { return ev.has(EventAcked, "m0", 0) }, 5*time.Second, "acknowledged through the script")
	eventually(t, func() bool { return pendingCount(t, base, 0) == 0 }, 5*time.Second, "claimed and acknowledged everything")
	require.NoError(t, stop())
}

// RESP2 clients get an aborted EXEC as a nil array: the same refusal.
func TestFencedAckerRESP2(t *testing.T) {
	t.Parallel()
	base := setupRedis(t, 1)
	ctx := context.Background()
	rc := redis.NewClient(&redis.Options{Addr: base.Options().Addr, Protocol: 2})
	t.Cleanup(func() { _ = rc.Close() })
	key := protocol.StreamKey(testStream, 0)
	fk := fence.Key(key, testGroup)
	require.NoError(t, base.HSet(ctx, fk, "owner", "m0", "token", 2).Err())
	ids := pendingIDs(t, base, 2)
	conn := rc.Conn()
	defer conn.Close()
	a := NewFencedAcker(conn, key, testGroup, 2)
	n, err := a.Ack(ctx, ids[0])
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	require.NoError(t, base.HSet(ctx, fk, "owner", "m1", "token", 3).Err())
	_, err = a.Ack(ctx, ids[1])
	require.ErrorIs(t, err, ErrFenced)
	require.Equal(t, int64(1), pendingCount(t, base, 0))
}
