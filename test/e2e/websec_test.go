package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// webEnv is a coordinator with auth on: an admin, and a READ user scoped
// to the stream orders.
func webEnv(t *testing.T) (*env, func(method, path, body string, hdr ...string) (int, protocol.ErrorBody, []byte)) {
	t.Helper()
	users, err := json.Marshal([]map[string]any{
		{"username": "ops", "password": "ops-password", "roles": []string{"ADMIN"}},
		{"username": "team", "password": "team-password", "roles": []string{"READ"}, "streams": []string{"orders"}},
	})
	require.NoError(t, err)
	e := start(t, map[string]string{
		"RSC_AUTH_USERS":                   string(users),
		"RSC_AUTH_TOKEN_SECRET":            "websec-secret-0123456789",
		"RSC_AUTH_AUTHENTICATE_MEMBER_API": "false",
	})
	e.c.User, e.c.Password = "ops", "ops-password"
	call := func(method, path, body string, hdr ...string) (int, protocol.ErrorBody, []byte) {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, e.coord.URL()+path, rd)
		require.NoError(t, err)
		req.SetBasicAuth("ops", "ops-password")
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := e.c.HTTP.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		var eb protocol.ErrorBody
		if resp.StatusCode >= 400 {
			require.NoError(t, json.Unmarshal(raw, &eb), "%s", raw)
		}
		return resp.StatusCode, eb, raw
	}
	for _, s := range []struct {
		prefix string
		shards int
	}{{"orders", 4}, {"billing", 2}} {
		e.c.MustDo(t, "POST", "/coord/v1/streams/"+s.prefix, map[string]any{"initialShardCount": s.shards, "requestedBy": "e2e"}, nil, 201)
		e.c.MustDo(t, "GET", "/coord/v1/streams/"+s.prefix+"/groups/workers/producer-routing", nil, nil, 200)
	}
	return e, call
}

func shardCountOf(t *testing.T, e *env, prefix string) int {
	t.Helper()
	var v protocol.StreamView
	e.c.MustDo(t, "GET", "/coord/v1/streams/"+prefix, nil, &v, 200)
	return v.ShardCount
}

// The cross-origin attack of a browser holding an operator's credentials:
// a text/plain form with a JSON body smuggled in, a cross-site fetch, an
// image tag on a GET. Nothing changes.
func TestCrossOriginFormChangesNothing(t *testing.T) {
	e, call := webEnv(t)
	form := `{"targetShardCount":0,"requestedBy":"x","reason":"x","pad":"=x"}`
	st, eb, _ := call("POST", "/coord/v1/streams/orders/scale", form, "Content-Type", "text/plain")
	require.Equal(t, 415, st)
	require.Equal(t, "UNSUPPORTED_MEDIA_TYPE", eb.ErrorCode)
	require.Contains(t, eb.Message, "application/json")

	st, eb, _ = call("POST", "/coord/v1/streams/orders/scale", form, "Content-Type", "text/plain", "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
	require.Equal(t, 403, st)
	require.Equal(t, "CROSS_ORIGIN_REQUEST", eb.ErrorCode)
	st, eb, _ = call("POST", "/coord/v1/streams/orders/groups/intruder", `{"requestedBy":"x"}`, "Content-Type", "application/json", "Origin", "https://evil.example")
	require.Equal(t, 403, st)
	require.Equal(t, "CROSS_ORIGIN_REQUEST", eb.ErrorCode)
	st, _, _ = call("GET", "/coord/v1/streams/orders/groups/viaimage/producer-routing", "", "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Dest", "image")
	require.Equal(t, 403, st)

	// GET of an unknown group: 404 as the reference answers, and nothing created.
	st, eb, _ = call("GET", "/coord/v1/streams/orders/groups/ghost", "")
	require.Equal(t, 404, st)
	require.Equal(t, "GROUP_NOT_FOUND", eb.ErrorCode)

	require.Equal(t, 4, shardCountOf(t, e, "orders"))
	var v protocol.StreamView
	e.c.MustDo(t, "GET", "/coord/v1/streams/orders", nil, &v, 200)
	require.Equal(t, []string{"workers"}, v.Groups, "no group created by the refused requests or the GET")

	// The same requests as a client sends them work.
	st, _, raw := call("POST", "/coord/v1/streams/orders/scale", `{"targetShardCount":6,"requestedBy":"e2e","reason":"ok"}`, "Content-Type", "application/json; charset=utf-8")
	require.Equal(t, 202, st, "%s", raw)
}

// A READ user scoped to orders sees only orders in the lists, and is
// refused the routes that show every stream.
func TestScopedUserListsOnlyItsStreams(t *testing.T) {
	e, call := webEnv(t)
	team := harness.NewClient(e.coord.URL())
	team.User, team.Password = "team", "team-password"
	var groups protocol.GroupsResponse
	team.MustDo(t, "GET", "/coord/v1/monitoring/groups", nil, &groups, 200)
	require.Len(t, groups.Groups, 1)
	require.Equal(t, "orders", groups.Groups[0].StreamPrefix)
	var all protocol.GroupsResponse
	e.c.MustDo(t, "GET", "/coord/v1/monitoring/groups", nil, &all, 200)
	require.Len(t, all.Groups, 2, "the unscoped admin sees both")
	var streams protocol.StreamsResponse
	team.MustDo(t, "GET", "/coord/v1/streams", nil, &streams, 200)
	require.Len(t, streams.Streams, 1)
	require.Equal(t, "orders", streams.Streams[0].StreamPrefix)
	for _, p := range []string{"/debug/actors", "/metrics", "/coord/v1/monitoring/streams/billing/groups/workers"} {
		raw := team.MustDo(t, "GET", p, nil, nil, 403)
		require.Contains(t, string(raw), "scoped to streams [orders]", p)
	}
	st, _, _ := call("GET", "/debug/actors", "")
	require.Equal(t, 200, st)
}

// Messages: only the stream's shards, whatever other keys exist; a shard
// key holding no stream is 409, never 500.
func TestMessagesBoundsAndWrongKeyType(t *testing.T) {
	e, call := webEnv(t)
	rdb := e.redis.Client()
	ctx := context.Background()
	require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "orders:78", Values: map[string]any{"n": "1"}}).Err())
	require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "orders:4", Values: map[string]any{"n": "1"}}).Err())
	for _, shard := range []string{"4", "78"} {
		st, eb, _ := call("GET", "/coord/v1/streams/orders/shards/"+shard+"/messages", "")
		require.Equal(t, 404, st, shard)
		require.Equal(t, "SHARD_NOT_FOUND", eb.ErrorCode)
	}
	require.NoError(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: "orders:1", Values: map[string]any{"n": "1"}}).Err())
	st, _, raw := call("GET", "/coord/v1/streams/orders/shards/1/messages", "")
	require.Equal(t, 200, st)
	require.Contains(t, string(raw), `"n":"1"`)
	require.NoError(t, rdb.Del(ctx, "orders:3").Err())
	require.NoError(t, rdb.Set(ctx, "orders:3", "not a stream", 0).Err())
	st, eb, _ := call("GET", "/coord/v1/streams/orders/shards/3/messages", "")
	require.Equal(t, 409, st)
	require.Equal(t, "SHARD_KEY_NOT_A_STREAM", eb.ErrorCode)
}

// Content-Length with Transfer-Encoding: 400, the connection closes, and
// the bytes after the first request never run.
func TestContentLengthAndTransferEncodingRefused(t *testing.T) {
	e, _ := webEnv(t)
	body := `{"targetShardCount":1,"requestedBy":"smuggler","reason":"x"}`
	smuggled := "POST /coord/v1/streams/orders/scale HTTP/1.1\r\nHost: x\r\nAuthorization: Basic b3BzOm9wcy1wYXNzd29yZA==\r\n" +
		"Content-Type: application/json\r\nContent-Length: " + fmt.Sprint(len(body)) + "\r\n\r\n" + body
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.coord.URL(), "http://"))
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(conn, "POST /coord/v1/streams/billing/scale HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
		"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"+smuggled)
	require.NoError(t, err)
	rd := bufio.NewReader(conn)
	resp, err := http.ReadResponse(rd, nil)
	require.NoError(t, err)
	raw, _ := io.ReadAll(resp.Body)
	require.Equal(t, 400, resp.StatusCode, "%s", raw)
	require.Contains(t, string(raw), "AMBIGUOUS_BODY_LENGTH")
	_, err = http.ReadResponse(rd, nil)
	require.Error(t, err, "the connection must be closed: a second answer means the smuggled request ran")
	require.Equal(t, 4, shardCountOf(t, e, "orders"))
	require.NotContains(t, e.coord.Logs(), "smuggler")
}
