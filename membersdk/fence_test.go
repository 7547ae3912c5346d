package membersdk

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

func TestFenceKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ stream, group, want string }{
		{"orders:3", "workers", "{orders:3}:fence:workers"},
		{"orders:0", "billing.v2_x:y-z", "{orders:0}:fence:billing.v2_x:y-z"},
		{"orders:12", "a b/c", "{orders:12}:fence:a%20b%2Fc"},
		{"orders:1", "grüppe%{}", "{orders:1}:fence:gr%C3%BCppe%25%7B%7D"},
		{"o:1", "", "{o:1}:fence:"},
	} {
		require.Equal(t, tc.want, fence.Key(tc.stream, tc.group), "stream %q group %q", tc.stream, tc.group)
	}
}

func readFenceFields(t *testing.T, rc *redis.Client, shard int) (owner, token string) {
	t.Helper()
	v, err := rc.HMGet(context.Background(), fence.Key(protocol.StreamKey(testStream, shard), testGroup), "owner", "token").Result()
	require.NoError(t, err)
	owner, _ = v[0].(string)
	token, _ = v[1].(string)
	return owner, token
}

// Messages carry the token of the fence the coordinator wrote for the grant.
func TestMessageCarriesTheFencingToken(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var h handled
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { h.add(m); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	xadd(t, rc, 0, "k", "v")
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 1 }, 5*time.Second, "acknowledged")
	owner, token := readFenceFields(t, rc, 0)
	require.Equal(t, "m0", owner)
	require.Equal(t, "1", token)
	require.Equal(t, int64(1), h.calls[0].FencingToken)
	require.NoError(t, stop())
}

// An older coordinator writes no fence: the member reads and acknowledges as
// before, with token 0.
func TestUnfencedCoordinatorStillWorks(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.noFence = true
	f.setTarget("m0", 0)
	var ev events
	var h handled
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { h.add(m); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	xadd(t, rc, 0, "k", "v")
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 1 }, 5*time.Second, "acknowledged")
	require.Equal(t, int64(0), pendingCount(t, rc, 0))
	require.Equal(t, int64(0), h.calls[0].FencingToken)
	n, err := rc.Exists(context.Background(), fence.Key(protocol.StreamKey(testStream, 0), testGroup)).Result()
	require.NoError(t, err)
	require.Zero(t, n, "no fence was written")
	require.NoError(t, stop())
}

// A worker whose shard's fence names someone else does not read the shard;
// it starts once the fence names it.
func TestWorkerDoesNotStartWhileTheFenceNamesAnotherOwner(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	ctx := context.Background()
	key := fence.Key(protocol.StreamKey(testStream, 0), testGroup)
	require.NoError(t, rc.HSet(ctx, key, "owner", "someone-else", "token", 7).Err())
	f := newFakeCoord(t, 1)
	f.noFence = true // the test writes the fence
	f.setTarget("m0", 0)
	var ev events
	var h handled
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { h.add(m); return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	xadd(t, rc, 0, "k", "v")
	eventually(t, func() bool { return len(ev.find(EventFenceNotHeld)) >= 2 }, 5*time.Second, "refused to start, twice (once per heartbeat)")
	require.False(t, ev.has(EventShardStarted, "m0", 0))
	require.Zero(t, h.count(), "nothing read")
	require.NoError(t, rc.HSet(ctx, key, "owner", "m0", "token", 8).Err())
	eventually(t, func() bool { return len(ev.find(EventAcked)) == 1 }, 5*time.Second, "started and acknowledged once the fence names it")
	require.Equal(t, int64(8), h.calls[0].FencingToken)
	require.NoError(t, stop())
}

// handover freezes member "a" at op (after its in-process ownership check,
// before the write is sent), lets its lease expire at the coordinator, hands
// shard 0 to member "b" (whose own claim waits), then resumes "a".
type handover struct {
	t      *testing.T
	rc     *redis.Client
	f      *fakeCoord
	ev     events
	a      *Consumer
	frozen chan struct{} // closed when a is frozen at op
	resume chan struct{} // closing it resumes a
	bGo    chan struct{} // closing it lets b claim
	once   sync.Once
}

func newHandover(t *testing.T, op string, handler Handler, mod func(*ConsumerConfig)) *handover {
	h := &handover{t: t, rc: setupRedis(t, 1), f: newFakeCoord(t, 1),
		frozen: make(chan struct{}), resume: make(chan struct{}), bGo: make(chan struct{})}
	h.f.setTarget("a", 0)
	cfg := testConfig(h.f, h.rc, "a", &h.ev)
	if mod != nil {
		mod(&cfg)
	}
	a, err := NewConsumer(cfg, handler)
	require.NoError(t, err)
	a.beforeWrite = func(o string, shard int) {
		if o == op {
			h.once.Do(func() { close(h.frozen); <-h.resume })
		}
	}
	h.a = a
	return h
}

func (h *handover) start() { runConsumer(h.t, h.a) }

// freezeAndHandOver waits for a to freeze, expires it and starts b, which
// is granted the shard (the fence names b) but holds its claim until bGo.
func (h *handover) freezeAndHandOver(handler Handler, mod func(*ConsumerConfig)) *Consumer {
	select {
	case <-h.frozen:
	case <-time.After(5 * time.Second):
		h.t.Fatal("member a never reached the write")
	}
	h.f.expire("a") // a's lease expired: the coordinator cleared its fence
	h.f.setTarget("b", 0)
	cfg := testConfig(h.f, h.rc, "b", &h.ev)
	if mod != nil {
		mod(&cfg)
	}
	b, err := NewConsumer(cfg, handler)
	require.NoError(h.t, err)
	b.beforeWrite = func(o string, shard int) {
		if o == "claim" {
			<-h.bGo
		}
	}
	runConsumer(h.t, b)
	eventually(h.t, func() bool { o, _ := readFenceFields(h.t, h.rc, 0); return o == "b" }, 5*time.Second, "fence moved to b")
	return b
}

func (h *handover) fencedEvents(member string) []Event {
	var out []Event
	for _, e := range h.ev.find(EventAckFenced) {
		if e.MemberID == member {
			out = append(out, e)
		}
	}
	return out
}

func pendingOf(t *testing.T, rc *redis.Client, shard int) map[string]int64 {
	t.Helper()
	p, err := rc.XPending(context.Background(), protocol.StreamKey(testStream, shard), testGroup).Result()
	require.NoError(t, err)
	return p.Consumers
}

func TestFrozenOwnersAckIsRefusedByTheFence(t *testing.T) {
	t.Parallel()
	var got handled
	h := newHandover(t, "ack", func(ctx context.Context, m Message) error { got.add(m); return nil }, nil)
	h.start()
	id := xadd(t, h.rc, 0, "k", "v")
	b := h.freezeAndHandOver(func(ctx context.Context, m Message) error { got.add(m); return nil }, nil)
	close(h.resume)
	eventually(t, func() bool { return len(h.fencedEvents("a")) == 1 }, 5*time.Second, "a's ack refused by the fence")
	e := h.fencedEvents("a")[0]
	require.Equal(t, id, e.EntryID)
	require.ErrorIs(t, e.Err, ErrFenced)
	require.Equal(t, int64(1), h.a.FencedWrites())
	require.Equal(t, map[string]int64{"a": 1}, pendingOf(t, h.rc, 0), "the entry stays pending, not acknowledged by a")
	require.False(t, h.ev.has(EventAcked, "a", 0))
	close(h.bGo)
	eventually(t, func() bool { return h.ev.has(EventAcked, "b", 0) }, 5*time.Second, "b processed the entry")
	require.Equal(t, int64(0), pendingCount(t, h.rc, 0))
	require.Equal(t, []string{id, id}, got.ids(0), "handled by a (refused) then by b")
	require.Zero(t, b.FencedWrites())
}

func TestFrozenOwnersClaimIsRefusedByTheFence(t *testing.T) {
	t.Parallel()
	var got handled
	h := newHandover(t, "claim", func(ctx context.Context, m Message) error { got.add(m); return nil }, nil)
	// An entry a previous owner ("old") left pending.
	id := xadd(t, h.rc, 0, "k", "v")
	require.NoError(t, h.rc.XReadGroup(context.Background(), &redis.XReadGroupArgs{
		Group: testGroup, Consumer: "old", Streams: []string{protocol.StreamKey(testStream, 0), ">"}, Count: 1,
	}).Err())
	h.start()
	h.freezeAndHandOver(func(ctx context.Context, m Message) error { got.add(m); return nil }, nil)
	close(h.resume)
	eventually(t, func() bool { return len(h.fencedEvents("a")) == 1 }, 5*time.Second, "a's claim refused by the fence")
	require.ErrorIs(t, h.fencedEvents("a")[0].Err, ErrFenced)
	require.Equal(t, map[string]int64{"old": 1}, pendingOf(t, h.rc, 0), "nothing claimed by a")
	require.Zero(t, got.count(), "a processed nothing")
	close(h.bGo)
	eventually(t, func() bool { return h.ev.has(EventAcked, "b", 0) }, 5*time.Second, "b claimed and processed the entry")
	require.Equal(t, []string{id}, got.ids(0))
	require.Equal(t, int64(0), pendingCount(t, h.rc, 0))
}

func TestFrozenOwnersDeadLetterMoveIsRefusedByTheFence(t *testing.T) {
	t.Parallel()
	fail := func(ctx context.Context, m Message) error { return errors.New("boom") }
	once := func(c *ConsumerConfig) { c.MaxDeliveries = 1 }
	h := newHandover(t, "deadletter", fail, once)
	h.start()
	id := xadd(t, h.rc, 0, "k", "v")
	h.freezeAndHandOver(fail, once)
	close(h.resume)
	eventually(t, func() bool { return len(h.fencedEvents("a")) == 1 }, 5*time.Second, "a's dead-letter move refused by the fence")
	require.Equal(t, id, h.fencedEvents("a")[0].EntryID)
	ctx := context.Background()
	n, err := h.rc.XLen(ctx, ShardDeadLetterKey(protocol.StreamKey(testStream, 0))).Result()
	require.NoError(t, err)
	require.Zero(t, n, "nothing dead-lettered by a")
	require.Equal(t, map[string]int64{"a": 1}, pendingOf(t, h.rc, 0), "the entry stays pending")
	close(h.bGo)
	eventually(t, func() bool { return h.ev.has(EventDeadLettered, "b", 0) }, 5*time.Second, "b dead-lettered the entry")
	dlq, err := h.rc.XRange(ctx, ShardDeadLetterKey(protocol.StreamKey(testStream, 0)), "-", "+").Result()
	require.NoError(t, err)
	require.Len(t, dlq, 1, "dead-lettered once, by the owner")
	require.Equal(t, "b", dlq[0].Values[DLQFieldMemberID])
	require.Equal(t, id, dlq[0].Values[DLQFieldOriginID])
	require.Equal(t, int64(0), pendingCount(t, h.rc, 0))
}
