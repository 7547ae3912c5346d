package group

import (
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// crash makes the receiving actor panic (supervision tests only).
type crash struct{}

// probe asks a member actor for the deadline its timer is armed for.
type probe struct{}

// testHook makes an actor panic on *crash and answers *probe from a member
// actor's own field, inside its goroutine.
func testHook(next actor.ReceiverFunc) actor.ReceiverFunc {
	return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
		switch env.Message.(type) {
		case *crash:
			panic("test: crash on purpose")
		case *probe:
			m := c.Actor().(*memberActor)
			c.ActorSystem().Root.Send(env.Sender, m.armedDeadline())
			return
		}
		next(c, env)
	}
}

// newSupervisedShell is newShell whose actors run testHook.
func newSupervisedShell(t *testing.T, rules model.Config, now func() time.Time) *shell {
	t.Helper()
	s := newShell(t, rules, now)
	require.NoError(t, s.system.Root.StopFuture(s.pid).Wait())
	s.deps.groupHooks = []actor.ReceiverMiddleware{testHook}
	s.deps.memberHooks = []actor.ReceiverMiddleware{testHook}
	s.spawn()
	return s
}

func (s *shell) memberPID(id string) *actor.PID {
	return actor.NewPID(s.system.Address(), s.pid.Id+"/member/"+id)
}

// armedFor returns the deadline the member actor's timer is armed for.
func (s *shell) armedFor(id string) time.Time {
	s.t.Helper()
	res, err := s.system.Root.RequestFuture(s.memberPID(id), &probe{}, 5*time.Second).Result()
	require.NoError(s.t, err)
	return res.(time.Time)
}

func owned(r protocol.HeartbeatResponse) []int { return protocol.Indexes(r.Assignment.AssignedShards) }

func TestPanickingMemberActorIsRestartedWithItsLeaseFromTheGroup(t *testing.T) {
	clk := newClock()
	s := newSupervisedShell(t, rules, clk.Now)
	a := s.beat("a", 0)
	clk.Advance(time.Second) // less than the confirmation validity (LeaseTTL/6)
	r := s.beat("a", a.MemberEpoch, owned(a)...)
	require.Equal(t, protocol.StatusOK, r.Status, "this heartbeat moved the lease past the one the actor was first armed for")
	// a holds shards: its timer is due one interval before its lease ends (groupstate.OverdueAt).
	want := clk.Now().Add(rules.LeaseTTL - rules.HeartbeatInterval)
	// A heartbeat that only moves the deadline on does not re-arm the timer: it fires at the
	// earlier deadline and is re-armed then (one arm per lease, not per heartbeat).
	first := s.armedFor("a")
	require.False(t, first.IsZero())
	require.False(t, first.After(want), "armed for %v, after the lease %v", first, want)

	s.system.Root.Send(s.memberPID("a"), &crash{})

	// The same actor (restarted, not replaced) holds nothing after the restart: it asks the
	// group and is armed for the group's deadline again.
	var got time.Time
	require.Eventually(t, func() bool { got = s.armedFor("a"); return got.Equal(want) }, 5*time.Second, time.Millisecond,
		"restarted member actor armed for %v, want %v", got, want)
	m, _ := member(s.debug(), "a")
	require.Equal(t, s.memberPID("a").String(), m.Actor)
}

func TestMemberWhoseActorPanickedStillExpiresWhenItStopsHeartbeating(t *testing.T) {
	short := rules
	short.LeaseTTL = 300 * time.Millisecond
	s := newSupervisedShell(t, short, time.Now)
	a := s.beat("a", 0)
	s.beat("b", 0)
	s.system.Root.Send(s.memberPID("b"), &crash{})

	// a keeps heartbeating, b is silent from now on.
	var mb model.MemberState
	for deadline := time.Now().Add(5 * time.Second); mb != model.StateExpired && time.Now().Before(deadline); {
		a = s.beat("a", a.MemberEpoch, owned(a)...)
		m, _ := member(s.debug(), "b")
		mb = model.MemberState(m.State)
		time.Sleep(20 * time.Millisecond)
	}
	require.Equal(t, model.StateExpired, mb, "the restarted member actor must still fire the lease")
	ma, _ := member(s.debug(), "a")
	require.NotEqual(t, string(model.StateExpired), ma.State)
}

func TestPanickingGroupActorReactivatesFromTheStore(t *testing.T) {
	s := newSupervisedShell(t, rules, time.Now)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, owned(a)...)
	b := s.beat("b", 0)
	before := s.debug()

	s.system.Root.Send(s.pid, &crash{})

	after := s.debug() // the same PID answers: restarted by its supervisor, not replaced
	require.Greater(t, after.ActivationEpoch, before.ActivationEpoch, "the new incarnation activated from the store")
	require.Equal(t, before.Meta.GroupEpoch, after.Meta.GroupEpoch)
	require.Len(t, after.Members, len(before.Members))
	for _, bm := range before.Members {
		am, ok := member(after, bm.ID)
		require.True(t, ok, bm.ID)
		require.Equal(t, bm.Epoch, am.Epoch, bm.ID)
		require.Equal(t, bm.State, am.State, bm.ID)
		require.NotEmpty(t, am.Actor, "%s has a member actor (lease timer) again", bm.ID)
	}
	// Nobody is fenced or sent back by the restart: each member keeps its epoch, or moves on
	// as it would have without the crash (a has nothing to revoke for the unconfirmed b; b's
	// confirming heartbeat moves the group epoch).
	r := s.beat("a", a.MemberEpoch, owned(a)...)
	require.Equal(t, protocol.StatusOK, r.Status)
	require.GreaterOrEqual(t, r.MemberEpoch, a.MemberEpoch)
	r = s.beat("b", b.MemberEpoch, owned(b)...)
	require.Equal(t, protocol.StatusOK, r.Status)
	require.GreaterOrEqual(t, r.MemberEpoch, b.MemberEpoch)
}

func TestPruneTickStillDropsRetainedMembers(t *testing.T) {
	short := rules
	short.LeaseTTL = 100 * time.Millisecond
	short.Retention = 100 * time.Millisecond
	s := newSupervisedShell(t, short, time.Now)
	s.beat("a", 0)
	known := true
	for deadline := time.Now().Add(5 * time.Second); known && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		s.system.Root.Send(s.pid, &groupmsg.PruneTick{})
		_, known = member(s.debug(), "a")
	}
	require.False(t, known, "expired by its timer or the tick, then pruned by PruneTick after retention")
}
