package reshard

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/recorder"
)

// The proxy forwards until a client names the armed marker, then cuts every
// connection (that command is not forwarded) and refuses new ones until
// restored.
func TestRedisProxyCutsOnMarker(t *testing.T) {
	srv := redistest.Start(t)
	p := startRedisProxy(t, srv.Addr())
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "orders:4", Values: map[string]any{"a": 1}}).Err())
	p.Arm("orders:5\r\n")
	require.NoError(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "orders:50", Values: map[string]any{"a": 1}}).Err(), "orders:50 is not the marker")
	require.Error(t, c.XAdd(ctx, &redis.XAddArgs{Stream: "orders:5", Values: map[string]any{"a": 1}}).Err())
	require.Equal(t, 1, p.Cuts())
	require.Error(t, c.Ping(ctx).Err(), "refused while cut")
	require.Zero(t, srv.Client().Exists(ctx, "orders:5").Val(), "the command naming the marker was not forwarded")
	p.Restore()
	require.NoError(t, c.Ping(ctx).Err())
	require.Equal(t, int64(1), srv.Client().Exists(ctx, "orders:4", "orders:5").Val())
}

// The order check compares only consecutive entries of a key on one shard
// incarnation, by the time each was first handled.
func TestKeyOrder(t *testing.T) {
	k := sdkKey(1) // seqs 1, 62, 123 share the key (mod 61)
	require.Equal(t, k, sdkKey(62))
	require.Equal(t, k, sdkKey(123))
	lines := []recorder.Line{
		{Kind: "handled", Shard: 2, Seq: 1, EntryID: "1-0", At: 10},
		{Kind: "handled", Shard: 2, Seq: 62, EntryID: "2-0", At: 20},
		{Kind: "handled", Shard: 2, Seq: 62, EntryID: "2-0", At: 5},  // an earlier handling counts
		{Kind: "handled", Shard: 5, Seq: 123, EntryID: "3-0", At: 1}, // moved shard: not compared
	}
	pairs, broken := keyOrder(lines)
	require.Equal(t, 1, pairs)
	require.Len(t, broken, 1)
	require.Contains(t, broken[0], "shard 2: seq 1")
	pairs, broken = keyOrder(lines[:2])
	require.Equal(t, 1, pairs)
	require.Empty(t, broken)
}

// historyProblems accepts a clean scale-in and names what is wrong with a
// bad one.
func TestHistoryProblems(t *testing.T) {
	at := func(s int) string { return time.Date(2026, 1, 1, 0, 0, s, 0, time.UTC).Format(time.RFC3339Nano) }
	good := protocol.Migration{ReshardingID: "rs-2", FromShardCount: 4, ToShardCount: 2, State: protocol.MigrationDeprecated,
		CreatedAt: at(0), UpdatedAt: at(4), RequestedBy: "test", MetadataVersion: 7,
		History: []protocol.MigrationStep{{State: "PREPARING", At: at(0)}, {State: "ACTIVE", At: at(1)}, {State: "DRAINING", At: at(2)}, {State: "DEPRECATED", At: at(4)}},
		Shards: []protocol.MigrationShard{
			{ShardIndex: 2, StreamKey: "orders:2", Change: "REMOVE", State: "RETIRED", RetiredKey: "{orders:2}:retired:rs-2"},
			{ShardIndex: 3, StreamKey: "orders:3", Change: "REMOVE", State: "RETIRED", RetiredKey: "{orders:3}:retired:rs-2"},
		}}
	require.Empty(t, historyProblems(good, 4, 2, protocol.MigrationDeprecated))
	bad := good
	bad.History = []protocol.MigrationStep{{State: "ACTIVE", At: at(1)}, {State: "PREPARING", At: at(0)}, {State: "DEPRECATED", At: at(4)}}
	bad.Shards = bad.Shards[:1]
	p := strings.Join(historyProblems(bad, 4, 2, protocol.MigrationDeprecated), "; ")
	for _, want := range []string{"starts ACTIVE", "ACTIVE → PREPARING is not allowed", "before the step before it", "without DRAINING", "shard 3 not listed"} {
		require.Contains(t, p, want)
	}
}
