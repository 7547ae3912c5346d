package group

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

var key = persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "workers"}

type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Now().UnixNano())
	return c
}
func (c *clock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

type shell struct {
	t      *testing.T
	system *actor.ActorSystem
	store  *memstore.Store
	prov   *memstore.Provisioner
	deps   *Deps
	pid    *actor.PID
	pids   []*actor.PID // every activation spawned, stopped at the end
	mu     sync.Mutex   // guards pid against the confirm loop
	manual atomic.Bool  // the test sends NodeConfirmed itself
}

// bareShell is a shell on an in-memory store holding the stream "orders" (4 shards) and no
// group actor yet: the test sets s.deps and calls s.spawn. At the end it stops every group
// actor it spawned (and so their member actors) before the actor system: Shutdown stops no
// actors, and member timers still firing in later tests trip protoactor-go's receive-timeout
// data race (issue #1139, notes/protoactor-go.md).
func bareShell(t *testing.T) *shell {
	t.Helper()
	s := &shell{t: t, system: actor.NewActorSystem(), store: memstore.New(), prov: memstore.NewProvisioner()}
	t.Cleanup(func() {
		for _, pid := range s.pids {
			_ = s.system.Root.StopFuture(pid).Wait()
		}
		s.system.Shutdown()
	})
	_, err := s.store.CreateStream(context.Background(), persistence.StreamRecord{StreamPrefix: "orders", ShardCount: 4, MetadataVersion: 1})
	require.NoError(t, err)
	return s
}

func newShell(t *testing.T, rules model.Config, now func() time.Time) *shell {
	t.Helper()
	s := bareShell(t)
	s.deps = &Deps{Store: s.store, Provisioner: s.prov, Rules: rules, NodeID: "test", Now: now}
	s.spawn()
	s.confirmLoop(now)
	return s
}

func (s *shell) spawn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pid = s.system.Root.Spawn(Props(key, s.deps))
	s.pids = append(s.pids, s.pid)
}

// confirmLoop stands in for the host's node confirmer: every round asks the current
// activation to check itself with the store (what each group did on its own before node
// records), so these tests exercise the group's side of confirmation.
func (s *shell) confirmLoop(now func() time.Time) {
	done := make(chan struct{})
	s.t.Cleanup(func() { close(done) })
	go func() {
		t := time.NewTicker(ConfirmInterval(s.deps.Rules))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if s.manual.Load() {
					continue
				}
				s.mu.Lock()
				pid := s.pid
				s.mu.Unlock()
				s.system.Root.Send(pid, &NodeConfirmed{Start: now(), Check: true})
			}
		}
	}()
}

func (s *shell) ask(msg any) any {
	s.t.Helper()
	res, err := s.system.Root.RequestFuture(s.pid, msg, 5*time.Second).Result()
	require.NoError(s.t, err)
	return res
}

func (s *shell) beat(id string, epoch int64, owned ...int) protocol.HeartbeatResponse {
	s.t.Helper()
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: fmt.Sprintf("%s-%d", id, epoch), MemberID: id,
		MemberEpoch: epoch, OwnedShards: protocol.ShardIDs(owned)}
	return s.ask(&groupmsg.HeartbeatRequest{PathMemberID: id, Request: req}).(*groupmsg.HeartbeatReply).Response
}

func (s *shell) debug() *groupmsg.DebugState {
	s.t.Helper()
	return s.ask(&groupmsg.DebugRequest{}).(*groupmsg.DebugState)
}

func member(d *groupmsg.DebugState, id string) (groupmsg.DebugMember, bool) {
	for _, m := range d.Members {
		if m.ID == id {
			return m, true
		}
	}
	return groupmsg.DebugMember{}, false
}

var rules = model.Config{HeartbeatInterval: time.Second, LeaseTTL: 10 * time.Second, RebalanceTimeout: 10 * time.Second, Retention: time.Hour}

func TestNewGroupCreatesConsumerGroupBeforeAssigning(t *testing.T) {
	s := newShell(t, rules, time.Now)
	r := s.beat("a", 0)
	require.Equal(t, protocol.StatusOK, r.Status)
	require.Len(t, r.Assignment.AssignedShards, 4)
	for i := 0; i < 4; i++ {
		require.True(t, s.prov.GroupExists(fmt.Sprintf("orders:%d", i), "workers"), "shard %d", i)
	}
	// A join is STARTING until its next heartbeat: it is told the short interval, then the configured one.
	require.Equal(t, groupstate.ShortInterval(rules).Milliseconds(), r.HeartbeatIntervalMs)
	require.Equal(t, int64(10000), r.MemberLeaseTTLMs)
	r = s.beat("a", r.MemberEpoch, 0, 1, 2, 3)
	require.Equal(t, protocol.StatusOK, r.Status)
	require.Equal(t, int64(1000), r.HeartbeatIntervalMs)
}

func TestFailedWriteAnswersRetryAndChangesNothing(t *testing.T) {
	s := newShell(t, rules, time.Now)
	a := s.beat("a", 0)
	require.Equal(t, protocol.StatusOK, a.Status)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...) // STARTING → ACTIVE
	before := s.debug()

	s.store.SetUnavailable(true)
	r := s.beat("b", 0)
	require.Equal(t, protocol.StatusRetry, r.Status)
	require.NotEmpty(t, r.Message)
	after := s.debug()
	_, known := member(after, "b")
	require.False(t, known, "a member whose join was not stored must not exist in memory")
	require.Equal(t, before.Meta, after.Meta)

	// The failed write's outcome is unknown (it may have landed), so memory is not trusted
	// until it is reloaded: even a steady-state heartbeat is told to retry while the store
	// cannot be read (see TestUnknownWriteOutcomeIsReloadedBeforeAnswering).
	r = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusRetry, r.Status)

	s.store.SetUnavailable(false)
	r = s.beat("b", 0)
	require.Equal(t, protocol.StatusOK, r.Status)
	r = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusOK, r.Status, "the store is back: a resumes with its epoch")
	require.GreaterOrEqual(t, r.MemberEpoch, a.MemberEpoch) // b is not confirmed yet: a may move to the new epoch at once
}

func TestSteadyStateHeartbeatWritesNothing(t *testing.T) {
	s := newShell(t, rules, time.Now)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...) // STARTING → ACTIVE
	writes := s.store.Writes()
	for i := 0; i < 50; i++ {
		r := s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
		require.Equal(t, protocol.StatusOK, r.Status)
	}
	require.Equal(t, writes, s.store.Writes())
}

func TestLeaseExpiresThroughTheMemberActorTimer(t *testing.T) {
	short := rules
	short.LeaseTTL = 300 * time.Millisecond
	s := newShell(t, short, time.Now)
	a := s.beat("a", 0)
	s.beat("b", 0)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
		if m, _ := member(s.debug(), "b"); m.State == string(model.StateExpired) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	m, _ := member(s.debug(), "b")
	require.Equal(t, string(model.StateExpired), m.State, "b still %s 5 s after its 300 ms lease", m.State)
	ma, _ := member(s.debug(), "a")
	require.Equal(t, string(model.StateActive), ma.State, "a kept heartbeating: its timer was re-armed every time")
}

func TestNewerActivationFencesTheOldOne(t *testing.T) {
	s := newShell(t, rules, time.Now)
	a := s.beat("a", 0)
	old := s.pid
	s.spawn() // a second activation of the same group (e.g. on another node)
	r := s.beat("b", 0)
	require.Equal(t, protocol.StatusOK, r.Status)

	// The old activation tries to write and learns it is fenced.
	res, err := s.system.Root.RequestFuture(old, &groupmsg.HeartbeatRequest{PathMemberID: "c", Request: protocol.HeartbeatRequest{
		ProtocolVersion: 1, RequestID: "c", MemberID: "c"}}, 5*time.Second).Result()
	require.NoError(t, err)
	require.Equal(t, protocol.StatusRetry, res.(*groupmsg.HeartbeatReply).Response.Status)
	_ = a
	snap, err := s.store.LoadGroup(context.Background(), key)
	require.NoError(t, err)
	require.NotContains(t, snap.Members, "c", "a fenced activation wrote nothing")
	require.Contains(t, snap.Members, "b")
}

func TestRecoveryGivesEveryMemberAFreshLease(t *testing.T) {
	clk := newClock()
	s := newShell(t, rules, clk.Now)
	a := s.beat("a", 0)
	require.NoError(t, s.system.Root.StopFuture(s.pid).Wait())

	clk.Advance(time.Hour) // far past the lease: a restart alone must not expire anyone
	s.spawn()
	d := s.debug()
	m, ok := member(d, "a")
	require.True(t, ok)
	require.NotEqual(t, string(model.StateExpired), m.State)
	require.InDelta(t, rules.LeaseTTL.Milliseconds(), m.LeaseLeftMs, 50)
	r := s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusOK, r.Status)
	require.Equal(t, a.MemberEpoch, r.MemberEpoch)
	require.Greater(t, d.ActivationEpoch, int64(1))
}

func TestUnknownStreamIsUnknownMember(t *testing.T) {
	s := newShell(t, rules, time.Now)
	other := persistence.GroupKey{StreamPrefix: "missing", ConsumerGroup: "workers"}
	pid := s.system.Root.Spawn(Props(other, s.deps))
	res, err := s.system.Root.RequestFuture(pid, &groupmsg.HeartbeatRequest{PathMemberID: "a", Request: protocol.HeartbeatRequest{
		ProtocolVersion: 1, RequestID: "r", MemberID: "a"}}, 5*time.Second).Result()
	require.NoError(t, err)
	require.Equal(t, protocol.StatusUnknownMemberID, res.(*groupmsg.HeartbeatReply).Response.Status)
}

func TestStoreOutageAnswersRetryThenResumesWithFreshLeases(t *testing.T) {
	short := rules
	short.LeaseTTL = time.Second // validity 200ms
	s := newShell(t, short, time.Now)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusOK, a.Status)

	s.store.SetUnavailable(true)
	time.Sleep(1500 * time.Millisecond) // past validity and past the lease
	r := s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	require.Equal(t, protocol.StatusRetry, r.Status, "an unconfirmed activation must not answer from memory")

	s.store.SetUnavailable(false)
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) && r.Status != protocol.StatusOK {
		time.Sleep(50 * time.Millisecond)
		r = s.beat("a", a.MemberEpoch, protocol.Indexes(a.Assignment.AssignedShards)...)
	}
	require.Equal(t, protocol.StatusOK, r.Status, "the member resumes with its epoch: the outage alone expires nobody")
	require.Equal(t, a.MemberEpoch, r.MemberEpoch)
	require.Equal(t, a.Assignment.AssignedShards, r.Assignment.AssignedShards)
}

func TestExpiredRequestIsNotEvaluated(t *testing.T) {
	s := newShell(t, rules, time.Now)
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "late", MemberID: "a"}
	r := s.ask(&groupmsg.HeartbeatRequest{PathMemberID: "a", Request: req, Deadline: time.Now().Add(-time.Millisecond)}).(*groupmsg.HeartbeatReply).Response
	require.Equal(t, protocol.StatusRetry, r.Status)
	_, known := member(s.debug(), "a")
	require.False(t, known, "a request nobody waits for any more must change nothing")
}
