package api

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

func TestOffsetsRoute(t *testing.T) {
	h := newHarness(t, Config{})
	r := h.do("GET", "/coord/v1/streams/orders%3Av2/groups/workers/offsets", "")
	require.Equal(t, 200, r.status, "%s", r.body)
	require.Equal(t, []string{"Offsets orders:v2/workers"}, h.fake.Calls())
	var resp protocol.OffsetsResponse
	r.decode(t, &resp)
	require.Len(t, resp.Shards, 2)
	s0 := resp.Shards[0]
	require.Equal(t, "m1", s0.Owner)
	require.Equal(t, int64(2), s0.Lag)
	require.Equal(t, 1, s0.Consumers.Count)
	require.Equal(t, "m1", s0.Consumers.Names[0].Name)
	// Unknown values stay distinguishable; an empty consumer list is [].
	require.Contains(t, string(r.body), `"lag":-1`)
	require.Contains(t, string(r.body), `"consumers":{"count":0,"names":[]}`)
	require.Contains(t, string(r.body), `"memoryUsage":-1`)
	require.Contains(t, string(r.body), `"owner":""`)
}

func TestMessagesRoute(t *testing.T) {
	cases := []struct {
		query string
		call  string
	}{
		{"", "Messages orders/3 from=- count=50"},
		{"?from=-&count=1", "Messages orders/3 from=- count=1"},
		{"?from=1700000000000-5&count=1000", "Messages orders/3 from=1700000000000-5 count=1000"},
		{"?from=17", "Messages orders/3 from=17 count=50"},
	}
	for _, tc := range cases {
		h := newHarness(t, Config{})
		r := h.do("GET", "/coord/v1/streams/orders/shards/3/messages"+tc.query, "")
		require.Equal(t, 200, r.status, "%s: %s", tc.query, r.body)
		require.Equal(t, []string{tc.call}, h.fake.Calls())
		var resp protocol.MessagesResponse
		r.decode(t, &resp)
		require.Len(t, resp.Messages, 2)
		require.Equal(t, "v", resp.Messages[0].Fields["k"])
		require.Equal(t, "2-0", *resp.NextCursor)
	}
}

func TestMessagesRouteBadInput(t *testing.T) {
	cases := []struct {
		path, want string
	}{
		{"/coord/v1/streams/orders/shards/-1/messages", "shardIndex"},
		{"/coord/v1/streams/orders/shards/x/messages", "shardIndex"},
		{"/coord/v1/streams/orders/shards/+1/messages", "shardIndex"},
		{"/coord/v1/streams/orders/shards/99999999999999999999/messages", "shardIndex"},
		{"/coord/v1/streams/orders/shards/0/messages?count=0", "limits.browse-max-count"},
		{"/coord/v1/streams/orders/shards/0/messages?count=1001", "limits.browse-max-count"},
		{"/coord/v1/streams/orders/shards/0/messages?count=abc", "count"},
		{"/coord/v1/streams/orders/shards/0/messages?count=-5", "count"},
		{"/coord/v1/streams/orders/shards/0/messages?from=%2B", "from"},
		{"/coord/v1/streams/orders/shards/0/messages?from=(5-0", "from"},
		{"/coord/v1/streams/orders/shards/0/messages?from=5-x", "from"},
		{"/coord/v1/streams/or%7Bders/shards/0/messages", "streamPrefix"},
	}
	for _, tc := range cases {
		h := newHarness(t, Config{})
		r := h.do("GET", tc.path, "")
		require.Equal(t, 400, r.status, "%s: %s", tc.path, r.body)
		e := r.errorBody(t)
		require.Equal(t, protocol.CodeInvalidArgument, e.ErrorCode)
		require.Contains(t, e.Message, tc.want, tc.path)
		require.Empty(t, h.fake.Calls(), "nothing reaches the service on bad input")
	}
	// The bound is a setting.
	h := newHarness(t, Config{MaxBrowseCount: 10})
	e := h.do("GET", "/coord/v1/streams/orders/shards/0/messages?count=11", "").errorBody(t)
	require.Contains(t, e.Message, "between 1 and 10 (limits.browse-max-count)")
	require.Equal(t, 200, h.do("GET", "/coord/v1/streams/orders/shards/0/messages?count=10", "").status)
	// A default page larger than a small bound is clamped to it.
	h = newHarness(t, Config{MaxBrowseCount: 10})
	require.Equal(t, 200, h.do("GET", "/coord/v1/streams/orders/shards/0/messages", "").status)
	require.Equal(t, []string{"Messages orders/0 from=- count=10"}, h.fake.Calls())
	require.Error(t, Config{MaxBrowseCount: -1}.Validate())
}

func TestBrowseErrorMapping(t *testing.T) {
	cases := []struct {
		err    error
		status int
		code   string
	}{
		{coordinator.ErrStreamNotFound, 404, protocol.CodeStreamNotFound},
		{coordinator.ErrGroupNotFound, 404, protocol.CodeGroupNotFound},
		{coordinator.ErrShardNotFound, 404, protocol.CodeShardNotFound},
		{coordinator.ErrInvalidArgument, 400, protocol.CodeInvalidArgument},
		{coordinator.ErrUnavailable, 503, protocol.CodeStoreUnavailable},
		{errors.New("boom"), 500, protocol.CodeInternal},
	}
	for _, tc := range cases {
		for _, path := range []string{"/coord/v1/streams/orders/groups/g/offsets", "/coord/v1/streams/orders/shards/7/messages"} {
			h := newHarness(t, Config{})
			h.fake.setErr(fmt.Errorf("shard 7 of stream orders: %w", tc.err))
			r := h.do("GET", path, "")
			require.Equal(t, tc.status, r.status, "%v on %s", tc.err, path)
			require.Equal(t, tc.code, r.errorBody(t).ErrorCode)
		}
	}
}

// Both routes name a stream, so stream-scoped users see only their streams.
func TestBrowseRoutesAreStreamScoped(t *testing.T) {
	cfg := authConfig(t)
	cfg.Auth.Users = append(cfg.Auth.Users, config.User{Username: "orders-r", Password: "or-pass", Roles: []string{"READ"}, Streams: []string{"orders"}})
	auth := basic("orders-r", "or-pass")
	h := newHarness(t, cfg)
	require.Equal(t, 200, h.do("GET", "/coord/v1/streams/orders/groups/g/offsets", "", "Authorization", auth).status)
	require.Equal(t, 200, h.do("GET", "/coord/v1/streams/orders/shards/0/messages", "", "Authorization", auth).status)
	h = newHarness(t, cfg)
	h.assertRejected(h.do("GET", "/coord/v1/streams/payments/groups/g/offsets", "", "Authorization", auth), 403, protocol.CodeForbidden)
	h = newHarness(t, cfg)
	h.assertRejected(h.do("GET", "/coord/v1/streams/payments/shards/0/messages", "", "Authorization", auth), 403, protocol.CodeForbidden)
}
