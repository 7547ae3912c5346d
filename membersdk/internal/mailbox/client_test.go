package mailbox

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/stretchr/testify/require"
)

func newTestClient(t *testing.T) (*Client, *redis.Client) {
	rc := redistest.Start(t).Client()
	c := New(Config{Redis: rc, KeyPrefix: "rsc", Principal: "a b", Stream: "orders", Group: "g", Member: "m0"})
	t.Cleanup(c.Close)
	return c, rc
}

// nextEntry waits for the request entry after last and returns it.
func nextEntry(t *testing.T, rc *redis.Client, key, last string) redis.XMessage {
	res, err := rc.XRead(context.Background(), &redis.XReadArgs{Streams: []string{key, last}, Count: 1, Block: 5 * time.Second}).Result()
	require.NoError(t, err)
	return res[0].Messages[0]
}

func reply(t *testing.T, id string, status int) string {
	b, err := json.Marshal(protocol.MailboxReply{V: 1, Kind: protocol.MailboxKindReply, RequestID: id, Status: status, Body: json.RawMessage(`{}`)})
	require.NoError(t, err)
	return string(b)
}

// Two requests in flight at once each get their own reply, whatever the
// order the replies arrive in; a reply nobody waits for is dropped.
func TestSendMatchesRepliesByRequestID(t *testing.T) {
	c, rc := newTestClient(t)
	require.Equal(t, "rsc:{mb:a%20b}:requests", c.RequestsKey())
	require.Equal(t, "rsc:{mb:a%20b}:reply:orders|g|m0", c.ReplyKey())
	ctx := context.Background()
	var wg sync.WaitGroup
	got := map[string]int{}
	var mu sync.Mutex
	for _, id := range []string{"r1", "r2"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := c.Send(ctx, id, []byte(`{"requestId":"`+id+`"}`), 5*time.Second)
			if err == nil {
				mu.Lock()
				got[r.RequestID] = r.Status
				mu.Unlock()
			}
		}()
	}
	e1 := nextEntry(t, rc, c.RequestsKey(), "0")
	e2 := nextEntry(t, rc, c.RequestsKey(), e1.ID)
	for _, e := range []redis.XMessage{e1, e2} {
		require.Equal(t, "1", e.Values["v"])
		require.Equal(t, "m0", e.Values["member"])
		require.Equal(t, "heartbeat", e.Values["op"])
		require.Equal(t, "5000", e.Values["timeout"])
	}
	status := map[string]int{"r1": 201, "r2": 202}
	require.NoError(t, rc.LPush(ctx, c.ReplyKey(), reply(t, "late", 403), reply(t, "r2", 202), reply(t, "r1", 201)).Err())
	wg.Wait()
	require.Equal(t, status, got)
	require.Eventually(t, func() bool { return rc.LLen(ctx, c.ReplyKey()).Val() == 0 }, 2*time.Second, 10*time.Millisecond, "the late reply was read and dropped")
}

func TestSendWithoutReplyTimesOut(t *testing.T) {
	c, _ := newTestClient(t)
	start := time.Now()
	_, err := c.Send(context.Background(), "r1", []byte(`{}`), 150*time.Millisecond)
	require.ErrorIs(t, err, ErrNoReply)
	require.ErrorContains(t, err, "rsc:{mb:a%20b}:reply:orders|g|m0")
	require.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)
	c.Close()
	_, err = c.Send(context.Background(), "r2", []byte(`{}`), time.Second)
	require.ErrorIs(t, err, ErrClosed)
}

// A nudge pushed between requests is signalled; elements that are not
// version 1 mailbox replies are dropped and the reader goes on.
func TestNudgesAreSignalled(t *testing.T) {
	c, rc := newTestClient(t)
	ctx := context.Background()
	_, err := c.Send(ctx, "r0", []byte(`{}`), 50*time.Millisecond) // starts the reader
	require.ErrorIs(t, err, ErrNoReply)
	require.NoError(t, rc.RPush(ctx, c.ReplyKey(), "not json", `{"v":2,"kind":"nudge"}`, `{"v":1,"kind":"what"}`).Err())
	require.Eventually(t, func() bool { return rc.LLen(ctx, c.ReplyKey()).Val() == 0 }, 2*time.Second, 10*time.Millisecond)
	// One reader pops in order: the version 2 nudge was handled before the
	// last element left the list.
	select {
	case <-c.Nudges():
		t.Fatal("a version 2 element was taken for a nudge")
	default:
	}
	require.NoError(t, rc.LPush(ctx, c.ReplyKey(), `{"v":1,"kind":"nudge","reason":"shards-freed"}`).Err())
	select {
	case <-c.Nudges():
	case <-time.After(5 * time.Second):
		t.Fatal("no nudge signalled")
	}
}

// On Redis Cluster every key of a principal's mailbox is in one slot (the
// {mb:<principal>} hash tag), and a Send and its reply work through a
// cluster client.
func TestSendOnRedisCluster(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	rc := cl.Client()
	t.Cleanup(func() { _ = rc.Close() })
	c := New(Config{Redis: rc, KeyPrefix: "rsc", Principal: "alice", Stream: "orders", Group: "g", Member: "m0"})
	t.Cleanup(c.Close)
	ctx := context.Background()
	require.Equal(t, redisSlot(t, rc, c.RequestsKey()), redisSlot(t, rc, c.ReplyKey()))
	answer := reply(t, "r1", 200)
	go func() { // the coordinator: answer the first request
		if err := rc.XRead(ctx, &redis.XReadArgs{Streams: []string{c.RequestsKey(), "0"}, Count: 1, Block: 5 * time.Second}).Err(); err == nil {
			_ = rc.LPush(ctx, c.ReplyKey(), answer).Err()
		}
	}()
	r, err := c.Send(ctx, "r1", []byte(`{}`), 5*time.Second)
	require.NoError(t, err)
	require.Equal(t, 200, r.Status)
}

func redisSlot(t *testing.T, rc *redis.ClusterClient, key string) int64 {
	slot, err := rc.ClusterKeySlot(context.Background(), key).Result()
	require.NoError(t, err)
	return slot
}

// A Redis user that may write its request stream but not read its reply
// list gets ErrRefused (naming BLPOP), not an endless ErrNoReply.
func TestSendRefusedReplyReadIsErrRefused(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	require.NoError(t, srv.Client().Do(ctx, "ACL", "SETUSER", "half", "on", ">pw", "resetkeys", "%W~rsc:{mb:half}:requests",
		"resetchannels", "-@all", "+xadd", "+blpop", "+ping", "+hello", "+auth").Err())
	rc := srv.NewClient(&redis.Options{Username: "half", Password: "pw"})
	c := New(Config{Redis: rc, KeyPrefix: "rsc", Principal: "half", Stream: "orders", Group: "g", Member: "m0"})
	t.Cleanup(c.Close)
	require.Eventually(t, func() bool {
		_, err := c.Send(ctx, "r1", []byte(`{}`), 100*time.Millisecond)
		require.Error(t, err)
		return errors.Is(err, ErrRefused)
	}, 5*time.Second, 10*time.Millisecond, "the reader's NOPERM is reported")
	_, err := c.Send(ctx, "r2", []byte(`{}`), 100*time.Millisecond)
	require.ErrorIs(t, err, ErrRefused)
	require.ErrorContains(t, err, "BLPOP rsc:{mb:half}:reply:orders|g|m0")
	require.ErrorContains(t, err, "NOPERM")
}
