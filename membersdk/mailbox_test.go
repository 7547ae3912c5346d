package membersdk

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/mailbox"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/stretchr/testify/require"
)

// A mailbox member joins, is assigned shards, consumes them, and leaves on
// Close with epoch -1 — every request an entry of the principal's stream
// carrying exactly the body HTTP would POST.
func TestMailboxJoinAssignConsumeAndLeave(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 2)
	f := newFakeCoord(t, 1)
	fm := startFakeMailbox(t, f, rc, "alice")
	f.setTarget("m0", 0, 1)
	var ev events
	var h handled
	c, err := NewConsumer(mailboxConfig(f, rc, "m0", "alice", &ev), func(ctx context.Context, m Message) error { h.add(m); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)

	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) && ev.has(EventShardStarted, "m0", 1) }, 5*time.Second, "both shards started")
	joined := ev.find(EventJoined)
	require.Len(t, joined, 1)
	require.Equal(t, "redis-mailbox:rsc:{mb:alice}:requests", joined[0].URL)
	id0 := xadd(t, rc, 0, "k", "a")
	eventually(t, func() bool { return len(h.ids(0)) == 1 }, 5*time.Second, "shard 0 consumed")
	require.Equal(t, []string{id0}, h.ids(0))
	require.Zero(t, f.hitCount(0), "nothing went over HTTP")

	require.NoError(t, stop())
	require.True(t, ev.has(EventLeft, "m0", -1))
	reqs := f.requests("m0")
	last := reqs[len(reqs)-1]
	require.Equal(t, protocol.EpochLeave, last.MemberEpoch, "the leave went through the mailbox")
	require.Empty(t, last.OwnedShards)

	for _, e := range fm.requestEntries() {
		require.Equal(t, "1", e[protocol.MailboxFieldVersion])
		require.Equal(t, testStream, e[protocol.MailboxFieldStream])
		require.Equal(t, testGroup, e[protocol.MailboxFieldGroup])
		require.Equal(t, "m0", e[protocol.MailboxFieldMember])
		require.Equal(t, protocol.MailboxOpHeartbeat, e[protocol.MailboxFieldOp])
		wait := entryTimeout(t, e)
		require.Positive(t, wait)
		require.LessOrEqual(t, wait, time.Second, "at most RequestTimeout")
		body := e[protocol.MailboxFieldBody].(string)
		req, err := protocol.DecodeHeartbeat([]byte(body))
		require.NoError(t, err)
		again, err := json.Marshal(req)
		require.NoError(t, err)
		require.Equal(t, string(again), body, "the body is what json.Marshal gives, as over HTTP")
	}
}

// A reply whose requestId is another request's (a late answer) is dropped:
// here each would stop the member with 403 if it were taken.
func TestMailboxSkipsRepliesToOtherRequests(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	fm := startFakeMailbox(t, f, rc, "-")
	fm.set(func(fm *fakeMailbox) { fm.stale = true })
	f.setTarget("m0", 0)
	var ev events
	c, err := NewConsumer(mailboxConfig(f, rc, "m0", "-", &ev), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, done := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) && len(f.requests("m0")) >= 5 }, 5*time.Second, "joined and heartbeating")
	select {
	case err := <-done:
		t.Fatalf("Run returned %v: a stale reply was taken for the answer", err)
	default:
	}
	require.Empty(t, ev.find(EventHeartbeatFailed), "every heartbeat got its own answer")
	require.NoError(t, stop())
	require.Zero(t, rc.LLen(context.Background(), protocol.MailboxReplyKey("rsc", "-", testStream, testGroup, "m0")).Val(), "the stale replies were read and dropped")
}

// No reply within RequestTimeout is a failed heartbeat, retried with the
// SDK's backoff; a member that holds shards self-fences by its lease while
// the mailbox is silent, and resumes when answers come back.
func TestMailboxNoReplyRetriesAndSelfFences(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.lease = 1500
	fm := startFakeMailbox(t, f, rc, "-")
	fm.set(func(fm *fakeMailbox) { fm.silent = 2 })
	f.setTarget("m0", 0)
	var ev events
	cfg := mailboxConfig(f, rc, "m0", "-", &ev)
	cfg.RequestTimeout = 200 * time.Millisecond
	cfg.SelfFenceMargin = 500 * time.Millisecond
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)

	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 5*time.Second, "joined after two unanswered requests")
	failed := ev.find(EventHeartbeatFailed)
	require.GreaterOrEqual(t, len(failed), 2)
	require.ErrorIs(t, failed[0].Err, mailbox.ErrNoReply)
	entries := fm.requestEntries()
	require.GreaterOrEqual(t, len(entries), 3)
	for _, e := range entries[:3] {
		require.Equal(t, 200*time.Millisecond, entryTimeout(t, e), "the entry carries the wait")
	}

	silentAt := time.Now()
	fm.set(func(fm *fakeMailbox) { fm.silent = 1 << 30 })
	eventually(t, func() bool { return ev.has(EventSelfFenced, "m0", -1) }, 3*time.Second, "self-fenced while the mailbox is silent")
	require.Less(t, time.Since(silentAt), 1500*time.Millisecond, "before the lease ends")
	fm.set(func(fm *fakeMailbox) { fm.silent = 0 })
	eventually(t, func() bool { return ev.has(EventResumed, "m0", -1) }, 3*time.Second, "resumed once answers come back")
	require.NoError(t, stop())
}

// 403 through the mailbox stops the consumer with *AuthError, as over HTTP.
func TestMailboxForbiddenStopsTheConsumer(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	fm := startFakeMailbox(t, f, rc, "bob")
	fm.set(func(fm *fakeMailbox) { fm.status = 403 })
	var ev events
	c, err := NewConsumer(mailboxConfig(f, rc, "m0", "bob", &ev), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	_, done := runConsumer(t, c)
	select {
	case err := <-done:
		var ae *AuthError
		require.ErrorAs(t, err, &ae)
		require.Equal(t, 403, ae.StatusCode)
		require.Equal(t, protocol.CodeForbidden, ae.Body.ErrorCode)
		require.Contains(t, err.Error(), "through the Redis mailbox rsc:{mb:bob}:requests")
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
	require.Len(t, fm.requestEntries(), 1, "not retried")
}

// A nudge makes the member heartbeat at once instead of at its interval.
func TestMailboxNudgeHeartbeatsAtOnce(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.interval, f.lease = 5000, 20000
	fm := startFakeMailbox(t, f, rc, "-")
	f.setTarget("m0", 0)
	var ev events
	c, err := NewConsumer(mailboxConfig(f, rc, "m0", "-", &ev), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 5*time.Second, "joined")
	n := len(f.requests("m0"))
	for i := 1; i <= 3; i++ {
		at := time.Now()
		fm.nudge("m0")
		eventually(t, func() bool { return len(f.requests("m0")) >= n+i }, 2*time.Second, "heartbeat %d after the nudge", i)
		require.Less(t, time.Since(at), time.Second, "long before the 5s interval")
	}
	// A nudge that arrives while a heartbeat is in flight: the answer may
	// predate it, so the member heartbeats again right after the answer.
	n = len(f.requests("m0"))
	fm.set(func(fm *fakeMailbox) { fm.nudgeIn = true })
	at := time.Now()
	fm.nudge("m0") // makes the heartbeat that meets nudgeIn
	eventually(t, func() bool { return len(f.requests("m0")) >= n+2 }, 2*time.Second, "a second heartbeat right after the answer")
	require.Less(t, time.Since(at), time.Second)
	require.NoError(t, stop())
}

func TestMailboxConfigErrorsNameTheField(t *testing.T) {
	rc := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled
	defer rc.Close()
	base := ConsumerConfig{StreamPrefix: "orders", ConsumerGroup: "g", MemberID: "m0", Redis: rc}
	for _, tc := range []struct {
		change func(*ConsumerConfig)
		want   string
	}{
		{func(c *ConsumerConfig) { c.Transport = "grpc" }, `Transport "grpc" is not "http" or "redis"`},
		{func(c *ConsumerConfig) { c.Transport = TransportRedis }, "MailboxPrincipal is required"},
		{func(c *ConsumerConfig) {
			c.Transport, c.MailboxPrincipal, c.MailboxKeyPrefix = TransportRedis, "a", "x{y}"
		}, "MailboxKeyPrefix"},
		{func(c *ConsumerConfig) {}, "CoordinatorURLs"},
	} {
		cfg := base
		tc.change(&cfg)
		_, err := NewConsumer(cfg, func(context.Context, Message) error { return nil })
		require.ErrorContains(t, err, tc.want)
	}
	cfg := base
	cfg.Transport, cfg.MailboxPrincipal = TransportRedis, "-"
	c, err := NewConsumer(cfg, func(context.Context, Message) error { return nil })
	require.NoError(t, err, "no CoordinatorURLs needed")
	require.Equal(t, protocol.DefaultMailboxKeyPrefix, c.cfg.MailboxKeyPrefix)
}

// A Redis user limited by the documented ACL rules can use its own mailbox
// and nothing else; a member on a Redis user without them is refused by
// Redis and stops with *AuthError instead of retrying forever.
func TestMailboxRedisACL(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	require.NoError(t, rc.Do(ctx, words("ACL SETUSER alice on >pw resetkeys %W~rsc:{mb:alice}:requests %R~rsc:{mb:alice}:reply:* %W~rsc:{mb:alice}:reply:* resetchannels -@all +xadd +blpop +ping +hello +auth")...).Err())
	alice := redisAs(t, rc, "alice", "pw")
	require.NoError(t, alice.XAdd(ctx, newXAdd("rsc:{mb:alice}:requests")).Err())
	for _, key := range []string{"rsc:{mb:bob}:requests", "rsc:{s:orders}:stream"} {
		err := alice.XAdd(ctx, newXAdd(key)).Err()
		require.ErrorContains(t, err, "NOPERM", "alice may not write %s", key)
	}
	err := alice.BLPop(ctx, 10*time.Millisecond, "rsc:{mb:bob}:reply:orders|workers|m0").Err()
	require.ErrorContains(t, err, "NOPERM")

	require.NoError(t, rc.Do(ctx, words("ACL SETUSER mallory on >pw resetkeys ~orders:* +@all")...).Err())
	f := newFakeCoord(t, 1)
	var ev events
	cfg := mailboxConfig(f, rc, "m0", "alice", &ev)
	cfg.Redis = redisAs(t, rc, "mallory", "pw")
	c, err := NewConsumer(cfg, func(context.Context, Message) error { return nil })
	require.NoError(t, err)
	_, done := runConsumer(t, c)
	select {
	case err := <-done:
		var ae *AuthError
		require.ErrorAs(t, err, &ae)
		require.ErrorContains(t, err, "NOPERM")
		require.Contains(t, ae.Body.Message, "ACL")
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
}

// redisAs is a client of rc's server logged in as user.
func redisAs(t *testing.T, rc *redis.Client, user, pass string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: rc.Options().Addr, Username: user, Password: pass})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func newXAdd(key string) *redis.XAddArgs {
	return &redis.XAddArgs{Stream: key, Values: []any{"v", "1"}}
}

func words(s string) []any {
	var out []any
	for _, w := range strings.Fields(s) {
		out = append(out, w)
	}
	return out
}

// At steady state a mailbox heartbeat costs the member two Redis commands:
// one XADD and the one BLPOP that returns its reply (the reader's block
// outlasts the heartbeat interval, so it does not time out in between).
func TestMailboxHeartbeatCostsOneXaddAndOneBlpop(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rc := srv.Client()
	f := newFakeCoord(t, 1)
	startFakeMailbox(t, f, rc, "-")
	var ev events
	c, err := NewConsumer(mailboxConfig(f, rc, "m0", "-", &ev), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventJoined, "m0", -1) && len(f.requests("m0")) >= 3 }, 5*time.Second, "joined")
	srv.ResetStats()
	n := len(f.requests("m0"))
	eventually(t, func() bool { return len(f.requests("m0")) >= n+20 }, 10*time.Second, "20 heartbeats")
	calls := srv.CommandCalls()
	heartbeats := int64(len(f.requests("m0")) - n)
	t.Logf("%d heartbeats: %d XADD, %d BLPOP", heartbeats, calls["xadd"], calls["blpop"])
	require.InDelta(t, heartbeats, calls["xadd"], 1)
	require.InDelta(t, calls["xadd"], calls["blpop"], 1, "one BLPOP per reply")
	require.NoError(t, stop())
}
