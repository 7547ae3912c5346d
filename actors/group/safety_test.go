package group

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// hookStore wraps the shell's memstore so a test can intercept store calls.
type hookStore struct {
	persistence.Store
	mu    sync.Mutex
	check func(inner persistence.Store, ctx context.Context, k persistence.GroupKey, epoch int64) error
	save  func(inner persistence.Store, ctx context.Context, k persistence.GroupKey, epoch, rev int64, c persistence.GroupChange) (int64, error)
}

func (h *hookStore) CheckActivation(ctx context.Context, k persistence.GroupKey, epoch int64) error {
	h.mu.Lock()
	f := h.check
	h.mu.Unlock()
	if f != nil {
		return f(h.Store, ctx, k, epoch)
	}
	return h.Store.CheckActivation(ctx, k, epoch)
}

func (h *hookStore) SaveGroup(ctx context.Context, k persistence.GroupKey, epoch, rev int64, c persistence.GroupChange) (int64, error) {
	h.mu.Lock()
	f := h.save
	h.mu.Unlock()
	if f != nil {
		return f(h.Store, ctx, k, epoch, rev, c)
	}
	return h.Store.SaveGroup(ctx, k, epoch, rev, c)
}

func newHookedShell(t *testing.T, rules model.Config, now func() time.Time) (*shell, *hookStore) {
	s := newShell(t, rules, now)
	require.NoError(t, s.system.Root.StopFuture(s.pid).Wait())
	hs := &hookStore{Store: s.store}
	s.deps.Store = hs
	s.spawn()
	return s, hs
}

// A confirmation proves the activation was current when the store executed the read, not when
// the answer arrived: an activation must stop answering from memory `validity` after the read
// (members self-fence after TTL − margin, margin ≥ validity, counted from their send time). Here
// a newer activation takes the group right after the read and the answer is slow (1.9s): the
// old activation must not answer OK 2.4s after the read.
func TestConfirmationCountsFromTheStoreRead(t *testing.T) {
	clk := newClock()
	s, hs := newHookedShell(t, rules, clk.Now) // lease 10s: validity 2s
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusOK, a.Status)

	read := make(chan struct{})
	var once sync.Once
	hs.mu.Lock()
	hs.check = func(inner persistence.Store, ctx context.Context, k persistence.GroupKey, epoch int64) error {
		err := fmt.Errorf("partitioned: %w", persistence.ErrUnavailable)
		once.Do(func() {
			err = inner.CheckActivation(ctx, k, epoch) // current at this instant
			_, aerr := inner.Activate(ctx, k, "other-node")
			require.NoError(t, aerr)
			clk.Advance(1900 * time.Millisecond) // the answer travels slowly
			close(read)
		})
		return err
	}
	hs.mu.Unlock()
	select {
	case <-read:
	case <-time.After(5 * time.Second):
		t.Fatal("no confirmation tick")
	}
	clk.Advance(500 * time.Millisecond) // 2.4s after the read, 0.5s after the answer
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "late", MemberID: "a", MemberEpoch: a.MemberEpoch,
		OwnedShards: a.Assignment.AssignedShards}
	res, err := s.system.Root.RequestFuture(s.pid, &groupmsg.HeartbeatRequest{PathMemberID: "a", Request: req}, time.Second).Result()
	if err != nil {
		return // the stale activation found out it was fenced and stopped: it answers nothing
	}
	require.Equal(t, protocol.StatusRetry, res.(*groupmsg.HeartbeatReply).Response.Status,
		"a stale activation answered from memory more than validity after its last confirmed read")
}

// A write whose outcome is unknown (ErrUnavailable) may have landed. Here it did: the store
// expired member a and freed its shards, but memory still had a ACTIVE, so a's next
// (steady-state, write-free) heartbeat was answered OK and a kept reading; the next durable
// write then conflicted, memory was reloaded and b was handed a's shards while a still read
// them (and a failover would have done the same at once). Memory must be reloaded before it is
// trusted again.
func TestUnknownWriteOutcomeIsReloadedBeforeAnswering(t *testing.T) {
	short := rules
	short.LeaseTTL = time.Second
	s, hs := newHookedShell(t, short, time.Now)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusOK, a.Status)
	require.Len(t, a.Assignment.AssignedShards, 4)

	landed := make(chan struct{})
	var once sync.Once
	hs.mu.Lock()
	hs.save = func(inner persistence.Store, ctx context.Context, k persistence.GroupKey, epoch, rev int64, c persistence.GroupChange) (int64, error) {
		n, err := inner.SaveGroup(ctx, k, epoch, rev, c)
		if err == nil && bytes.Contains(c.PutMembers["a"], []byte(`"EXPIRED"`)) {
			fail := false
			once.Do(func() { fail = true; close(landed) })
			if fail {
				return 0, fmt.Errorf("save group: reply lost: %w", persistence.ErrUnavailable)
			}
		}
		return n, err
	}
	hs.mu.Unlock()
	select { // a stops heartbeating; its lease (1s) expires through the member actor
	case <-landed:
	case <-time.After(5 * time.Second):
		t.Fatal("a was not expired")
	}
	r := s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.NotEqual(t, protocol.StatusOK, r.Status, "a was told OK although the store has it expired")
	b := s.beat("b", 0)
	for deadline := time.Now().Add(3 * time.Second); b.Status == protocol.StatusRetry && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		b = s.beat("b", 0)
	}
	require.Equal(t, protocol.StatusOK, b.Status, "b not admitted within 3 s: %s", b.Message)
}

// A LEAVING member still drains its shards (and a FENCED one may still read them): deleting the
// group without force must be refused, or the re-created group hands those shards out at once.
func TestDeleteRefusedWhileAMemberStillHoldsShards(t *testing.T) {
	s := newShell(t, rules, time.Now)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "leave", MemberID: "a", MemberEpoch: -1,
		RevokingShards: []protocol.RevokingShard{{Shard: protocol.ShardID{ShardIndex: 0}, State: "DRAINING"}, {Shard: protocol.ShardID{ShardIndex: 1}, State: "DRAINING"}}}
	l := s.ask(&groupmsg.HeartbeatRequest{PathMemberID: "a", Request: req}).(*groupmsg.HeartbeatReply).Response
	require.Equal(t, protocol.StatusOK, l.Status)
	m, _ := member(s.debug(), "a")
	require.Equal(t, string(model.StateLeaving), m.State)

	d := s.ask(&groupmsg.DeleteRequest{}).(*groupmsg.DeleteReply)
	require.NoError(t, d.Err)
	if d.Deleted { // what happens next: a new activation gives a's draining shards to b
		s.spawn()
		b := s.beat("b", 0)
		t.Fatalf("group deleted while a still drains [0 1]; the re-created group gave b %v", b.Assignment.AssignedShards)
	}
	require.Equal(t, 1, d.LiveMembers)
}

// Progress rows are kept only for members the group knows after the heartbeat: a leave (or a
// leave of a member never known) must not leave rows behind, or any client could grow the
// group actor's memory and the consumption view without bound.
func TestProgressIsNotKeptForDepartedOrUnknownMembers(t *testing.T) {
	s := newShell(t, rules, time.Now)
	progress := []protocol.ShardProgress{{Shard: protocol.ShardID{ShardIndex: 0}, StreamKey: "orders:0", PendingCount: 1}}
	for i := 0; i < 3; i++ {
		id := fmt.Sprintf("ghost-%d", i)
		req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: id, MemberID: id, MemberEpoch: -1, ShardProgress: progress}
		r := s.ask(&groupmsg.HeartbeatRequest{PathMemberID: id, Request: req}).(*groupmsg.HeartbeatReply).Response
		require.Equal(t, protocol.StatusOK, r.Status)
	}
	a := s.beat("a", 0)
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "a", MemberID: "a", MemberEpoch: a.MemberEpoch,
		OwnedShards: a.Assignment.AssignedShards, ShardProgress: progress}
	require.Equal(t, protocol.StatusOK, s.ask(&groupmsg.HeartbeatRequest{PathMemberID: "a", Request: req}).(*groupmsg.HeartbeatReply).Response.Status)
	req = protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "a-leave", MemberID: "a", MemberEpoch: -1, ShardProgress: progress}
	require.Equal(t, protocol.StatusOK, s.ask(&groupmsg.HeartbeatRequest{PathMemberID: "a", Request: req}).(*groupmsg.HeartbeatReply).Response.Status)

	d := s.ask(&groupmsg.DescribeRequest{}).(*groupmsg.Description)
	require.NoError(t, d.Err)
	require.Empty(t, d.Consumption.Rows)
}

// Resize refuses a shard count groupstate cannot take (Resize returns no change) instead of
// dereferencing the missing change.
func TestResizeOutOfRangeIsAnErrorNotAPanic(t *testing.T) {
	s := newShell(t, rules, time.Now)
	s.beat("a", 0)
	r := s.ask(&groupmsg.ResizeRequest{ShardCount: -1, MetadataVersion: 9}).(*groupmsg.ErrorReply)
	require.Error(t, r.Err)
	require.Equal(t, protocol.StatusOK, s.beat("b", 0).Status, "the group actor is still alive")
}

// A member timer can be lost (protoactor-go's receive-timeout race, issue #1139, can tear the
// timer while an arm message is handled): the periodic PruneTick must then still expire a
// member whose lease passed, or its shards stay blocked for good.
func TestPruneTickExpiresAMemberWhoseTimerWasLost(t *testing.T) {
	short := rules
	short.LeaseTTL = 300 * time.Millisecond
	s := newShell(t, short, time.Now)
	// Simulate the lost timer: the member actors of this shell never see their
	// receive-timeout (a middleware drops it), whenever their start-up handshake arms it.
	require.NoError(t, s.system.Root.StopFuture(s.pid).Wait())
	dropped := make(chan struct{})
	var dropOnce sync.Once
	s.deps.memberHooks = []actor.ReceiverMiddleware{func(next actor.ReceiverFunc) actor.ReceiverFunc {
		return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
			if _, lost := env.Message.(*actor.ReceiveTimeout); lost {
				dropOnce.Do(func() { close(dropped) })
				return
			}
			next(c, env)
		}
	}}
	s.spawn()
	s.beat("a", 0)
	select { // the lease ran out and its timer fired: the middleware dropped it
	case <-dropped:
	case <-time.After(5 * time.Second):
		t.Fatal("the member's lease timer never fired (300 ms lease)")
	}
	m, _ := member(s.debug(), "a")
	require.LessOrEqual(t, m.LeaseLeftMs, int64(0), "the timer fired before the lease ran out")
	require.Equal(t, string(model.StateStarting), m.State, "the timer did not fire (simulated loss)")

	// Repeat: a tick that finds the activation unconfirmed (a loaded machine) does nothing.
	for deadline := time.Now().Add(3 * time.Second); m.State != string(model.StateExpired) && time.Now().Before(deadline); {
		s.system.Root.Send(s.pid, &groupmsg.PruneTick{})
		m, _ = member(s.debug(), "a")
		time.Sleep(10 * time.Millisecond)
	}
	require.Equal(t, string(model.StateExpired), m.State, "the prune tick is the safety net for lost timers")
}
