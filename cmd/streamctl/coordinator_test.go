package main

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// streamctl against a real coordinator process and a real redis-server:
// every command that does not need resharding, end to end.
func TestAgainstRealCoordinator(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a coordinator process")
	}
	isolate(t)
	ctx := context.Background()
	rs := redistest.Start(t)
	coord := harness.StartCoordinator(t, harness.Options{RedisAddr: rs.Addr()})
	url := coord.URL()
	sc := func(args ...string) result {
		t.Helper()
		return ctl(t, append([]string{"--url", url}, args...)...)
	}
	jsonOf := func(v any, args ...string) {
		t.Helper()
		r := sc(append([]string{"-o", "json"}, args...)...)
		require.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		require.NoError(t, json.Unmarshal([]byte(r.stdout), v), r.stdout)
	}

	require.Equal(t, 0, sc("health").code)
	r := sc("streams", "create", "orders", "--shards", "2", "--reason", "test")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, 1, sc("streams", "create", "orders").code, "exists: 409")
	r = sc("groups", "create", "orders", "billing")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, 1, sc("groups", "create", "orders", "billing").code, "exists: 409")
	require.Equal(t, 3, sc("groups", "create", "ghost", "billing").code, "unknown stream: 404")

	// Data: 3 entries on shard 0; a member joins and owns both shards; its
	// Redis consumer reads 2 of them (pending 2, lag 1).
	rc := rs.Client()
	for i := 0; i < 3; i++ {
		require.NoError(t, rc.XAdd(ctx, &redis.XAddArgs{Stream: "orders:0", NoMkStream: true, Values: []any{"order", fmt.Sprint(i)}}).Err())
	}
	m := harness.NewMember(harness.NewClient(url), "orders", "billing", "m1")
	m.Beat(t)
	m.Beat(t)
	require.Equal(t, []int{0, 1}, m.Shards())
	_, err := rc.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "billing", Consumer: "m1", Streams: []string{"orders:0", ">"}, Count: 2}).Result()
	require.NoError(t, err)

	var off protocol.OffsetsResponse
	jsonOf(&off, "offsets", "orders", "billing")
	require.Len(t, off.Shards, 2)
	s0 := off.Shards[0]
	require.Equal(t, int64(3), s0.Length)
	require.Equal(t, int64(2), s0.Pending)
	require.Equal(t, int64(1), s0.Lag)
	require.Equal(t, int64(2), s0.EntriesRead)
	require.Equal(t, "m1", s0.Owner)
	require.Equal(t, "m1", s0.TargetOwner)
	require.Equal(t, []protocol.ShardConsumer{{Name: "m1", Pending: 2, IdleMs: s0.Consumers.Names[0].IdleMs}}, s0.Consumers.Names)
	require.Positive(t, s0.MemoryUsage)
	require.Equal(t, int64(0), off.Shards[1].Lag)
	r = sc("offsets", "orders", "billing")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `0\s+m1\s+m1\s+3\s+`, r.stdout)

	var page protocol.MessagesResponse
	jsonOf(&page, "messages", "orders", "0", "--count", "2")
	require.Len(t, page.Messages, 2)
	require.Equal(t, "0", page.Messages[0].Fields["order"])
	require.NotNil(t, page.NextCursor)
	jsonOf(&page, "messages", "orders", "0", "--from", *page.NextCursor)
	require.Len(t, page.Messages, 1)
	require.Nil(t, page.NextCursor)
	require.Equal(t, "2", page.Messages[0].Fields["order"])
	require.Equal(t, 3, sc("messages", "orders", "2").code, "shard out of range: 404")
	require.Equal(t, 3, sc("messages", "ghost", "0").code, "unknown stream: 404")
	r = sc("messages", "orders", "0", "--count", "100000")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "limits.browse-max-count")

	var members protocol.MembersResponse
	jsonOf(&members, "members", "orders", "billing")
	require.Len(t, members.Members, 1)
	for _, args := range [][]string{
		{"members", "orders", "billing"}, {"assignments", "orders", "billing"}, {"consumption", "orders", "billing"},
		{"groups"}, {"groups", "list", "orders"}, {"group", "orders", "billing"}, {"streams", "list"}, {"streams", "describe", "orders"},
		{"migrations", "orders", "billing"}, {"watch", "orders", "billing", "--count", "1"}, {"debug"}, {"debug", "orders", "billing"},
	} {
		r := sc(args...)
		require.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		require.NotEmpty(t, r.stdout, args)
	}
	require.Equal(t, 3, sc("streams", "describe", "ghost").code)
	require.Equal(t, 3, sc("migration", "orders", "billing", "rs-none").code)

	var routes struct {
		Routes []struct {
			ShardIndex int
			StreamKey  string
		}
	}
	jsonOf(&routes, "routing", "orders", "billing", "order-123")
	require.Equal(t, int(protocol.Route("order-123", 2)), routes.Routes[0].ShardIndex)

	// Auth is off on this coordinator: login says so.
	r = sc("login", "--user", "u", "--password", "p")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "authentication is disabled")

	r = sc("groups", "delete", "orders", "billing")
	require.Equal(t, 1, r.code, "live member: 409")
	require.Equal(t, 0, sc("groups", "delete", "orders", "billing", "--force").code)
	require.Equal(t, 3, sc("offsets", "orders", "billing").code)
}
