package fence_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// setup: shard stream orders:0 with group g, three entries read by m1, and
// a fence naming m1 at token 7.
func setup(t *testing.T) (*redis.Client, []string) {
	t.Helper()
	ctx := context.Background()
	c := redistest.Start(t).Client()
	require.NoError(t, c.XGroupCreateMkStream(ctx, "orders:0", "g", "0").Err())
	for i := 0; i < 3; i++ {
		require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "orders:0", Values: []any{"n", i}}).Err())
	}
	got, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "m1", Streams: []string{"orders:0", ">"}}).Result()
	require.NoError(t, err)
	var ids []string
	for _, m := range got[0].Messages {
		ids = append(ids, m.ID)
	}
	require.NoError(t, c.HSet(ctx, fence.Key("orders:0", "g"), "owner", "m1", "token", 7).Err())
	return c, ids
}

func ops() []fence.Op {
	return []fence.Op{
		{Name: "XADD", Key: "{orders:0}:out", Args: []any{"*", "sum", "3"}},
		{Name: "HINCRBY", Key: "{orders:0}:sums", Args: []any{"k", int64(3)}},
		{Name: "INCRBY", Key: "{orders:0}:count", Args: []any{int64(2)}},
		{Name: "SET", Key: "{orders:0}:last", Args: []any{"x", "PX", "60000"}},
	}
}

func pending(t *testing.T, c *redis.Client) int64 {
	p, err := c.XPending(context.Background(), "orders:0", "g").Result()
	require.NoError(t, err)
	return p.Count
}

// The writes and the XACK land together while the fence names the member.
func TestCommitAppliesWritesAndAck(t *testing.T) {
	ctx := context.Background()
	c, ids := setup(t)
	n, err := fence.Commit(ctx, c, "orders:0", "g", "m1", 7, ids[:2], ops())
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	require.EqualValues(t, 1, pending(t, c))
	require.EqualValues(t, 1, c.XLen(ctx, "{orders:0}:out").Val())
	require.Equal(t, "3", c.HGet(ctx, "{orders:0}:sums", "k").Val())
	require.Equal(t, "2", c.Get(ctx, "{orders:0}:count").Val())
	require.Equal(t, "x", c.Get(ctx, "{orders:0}:last").Val())
}

// A fence naming another owner or token refuses the commit: nothing is
// written, nothing acknowledged.
func TestCommitFencedWritesNothing(t *testing.T) {
	ctx := context.Background()
	c, ids := setup(t)
	for _, who := range []struct {
		member string
		token  int64
	}{{"m1", 6}, {"m2", 7}, {"m1", 0}} {
		_, err := fence.Commit(ctx, c, "orders:0", "g", who.member, who.token, ids, ops())
		require.ErrorIs(t, err, fence.ErrFenced, "%+v", who)
	}
	require.EqualValues(t, 3, pending(t, c))
	require.Zero(t, c.Exists(ctx, "{orders:0}:out", "{orders:0}:sums", "{orders:0}:count", "{orders:0}:last").Val())
}

// A write Redis would refuse halfway (a key of another type, a counter that
// is not an integer, as the writes before it leave it) is found before
// anything is written.
func TestCommitRejectedWritesNothing(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct {
		prep func(c *redis.Client)
		ops  []fence.Op
	}{
		"hash on a string":       {func(c *redis.Client) { c.Set(ctx, "{orders:0}:sums", "x", 0) }, nil},
		"stream on a hash":       {func(c *redis.Client) { c.HSet(ctx, "{orders:0}:out", "a", 1) }, nil},
		"counter not an integer": {func(c *redis.Client) { c.Set(ctx, "{orders:0}:count", "abc", 0) }, nil},
		"field not an integer":   {func(c *redis.Client) { c.HSet(ctx, "{orders:0}:sums", "k", "1.5") }, nil},
		"set then incr in one tx": {nil, append(ops()[:3:3], fence.Op{Name: "SET", Key: "{orders:0}:count", Args: []any{"abc"}},
			fence.Op{Name: "INCRBY", Key: "{orders:0}:count", Args: []any{int64(1)}})},
		"unknown command": {nil, append(ops()[:3:3], fence.Op{Name: "FLUSHALL", Key: "{orders:0}:x"})},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, ids := setup(t)
			if tc.prep != nil {
				tc.prep(c)
			}
			o := tc.ops
			if o == nil {
				o = ops()
			}
			before := c.DBSize(ctx).Val()
			_, err := fence.Commit(ctx, c, "orders:0", "g", "m1", 7, ids, o)
			require.ErrorIs(t, err, fence.ErrTxRejected)
			require.EqualValues(t, 3, pending(t, c))
			require.Equal(t, before, c.DBSize(ctx).Val(), "no key created")
			require.Zero(t, c.XLen(ctx, "{orders:0}:out").Val())
		})
	}
	// DEL before a write makes the key new again: not a rejection.
	c, ids := setup(t)
	c.Set(ctx, "{orders:0}:sums", "x", 0)
	_, err := fence.Commit(ctx, c, "orders:0", "g", "m1", 7, ids, append([]fence.Op{{Name: "DEL", Key: "{orders:0}:sums"}}, ops()...))
	require.NoError(t, err)
	require.Equal(t, "3", c.HGet(ctx, "{orders:0}:sums", "k").Val())
}

// SlotKey names keys in the shard's slot.
func TestSlotKey(t *testing.T) {
	require.Equal(t, 12182, protocol.RedisSlot("foo"))
	require.Equal(t, protocol.RedisSlot("orders:3"), protocol.RedisSlot(fence.SlotKey("orders:3", "out")))
	require.Equal(t, protocol.RedisSlot("orders:3"), protocol.RedisSlot(fence.Key("orders:3", "g")))
	require.Equal(t, protocol.RedisSlot("bar"), protocol.RedisSlot("foo{bar}{zap}"), "the first tag counts")
	require.Equal(t, protocol.RedisSlot("{user1000}.following"), protocol.RedisSlot("{user1000}.followers"))
}

// Writes refuse a key of another slot on Cluster, past the bounds, and once
// closed; nothing is queued then.
func TestWritesRefuse(t *testing.T) {
	w := fence.NewWrites("orders:3", true, fence.TxLimits{MaxWrites: 2, MaxBytes: 64})
	require.ErrorIs(t, w.Add(fence.Op{Name: "SET", Key: "elsewhere", Args: []any{"1"}}), fence.ErrTxSlot)
	require.NoError(t, w.Add(fence.Op{Name: "SET", Key: fence.SlotKey("orders:3", "a"), Args: []any{"1"}}))
	require.ErrorIs(t, w.Add(fence.Op{Name: "SET", Key: fence.SlotKey("orders:3", "b"), Args: []any{string(make([]byte, 64))}}), fence.ErrTxTooLarge)
	require.NoError(t, w.Add(fence.Op{Name: "SET", Key: fence.SlotKey("orders:3", "b"), Args: []any{"2"}}))
	require.ErrorIs(t, w.Add(fence.Op{Name: "SET", Key: fence.SlotKey("orders:3", "c"), Args: []any{"3"}}), fence.ErrTxTooLarge)
	queued, err := w.Close("the handler returned")
	require.NoError(t, err)
	require.Len(t, queued, 2)
	_, err = w.Close("again")
	require.ErrorIs(t, err, fence.ErrTxClosed)
	err = w.Add(fence.Op{Name: "DEL", Key: fence.SlotKey("orders:3", "a")})
	require.ErrorIs(t, err, fence.ErrTxClosed)
	require.Contains(t, err.Error(), "the handler returned")
	require.NoError(t, fence.NewWrites("orders:3", false, fence.TxLimits{}).Add(fence.Op{Name: "SET", Key: "elsewhere"}), "any key without Cluster")
	require.Error(t, fence.NewWrites("orders:3", false, fence.TxLimits{}).Add(fence.Op{Name: "SET", Key: "k", Args: []any{map[string]int{}}}), "a value Redis cannot take")
}
