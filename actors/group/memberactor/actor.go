package memberactor

import (
	"strconv"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/dispatch"
)

// Actor embodies one member's lease: its receive-timeout is armed for
// the member's next deadline (the design's "a member's lease timer is its
// actor's receive-timeout"). It keeps no rules; when the timeout fires it
// tells the group actor, which decides with groupstate whether the deadline
// really passed (the timeout can be queued behind a heartbeat's re-arm).
//
// The timer may fire before the member's current deadline: a heartbeat that
// only moves the deadline on does not re-arm it (armMember), the group
// re-arms it when it fires early (onMemberDue), so steady heartbeats cost one
// arm per lease instead of one per heartbeat.
//
// It holds nothing the group cannot give back: on Started (also after a
// supervisor restart) it asks the group for its deadline (Started), and
// the group answers with Arm.
//
// It is kept cheap because a node runs one per member (100,000s): every
// member actor of a node is spawned from one shared Props (Props)
// and reads its member id from its own name when it needs it (Name,
// IDOf: a substring, no copy), so that nothing
// per member is allocated beyond what protoactor needs for an actor with a
// receive-timeout; its mailbox (mailbox) is one small record that holds
// no queue array while empty (docs/BENCHMARKS.md, "Memory per member").
//
// protoactor-go's receive-timeout can, rarely, be lost (its timer races with
// message handling, upstream issue #1139). The group actor's periodic
// PruneTick therefore also evaluates every deadline (groupstate.Tick): a lost
// timeout delays an expiry by at most one prune interval
// (docs/RELIABILITY.md §3).
type Actor struct {
	now      func() time.Time
	deadline int64 // Unix nanoseconds; 0 = none (16 bytes per actor, not 32)
}

// Props returns the Props every member actor of a node is spawned from (one per
// group.Deps): now is the node's clock, hooks its receiver middleware.
func Props(now func() time.Time, hooks ...actor.ReceiverMiddleware) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &Actor{now: now}
	}, actor.WithMailbox(newMailbox), actor.WithReceiverMiddleware(hooks...), actor.WithDispatcher(dispatch.Workers))
}

// Name is the child name of a member actor: "member/<id>", or, when a
// previous actor of that name is still stopping, "member#<n>/<id>". The
// member id is everything after the first '/', whatever it contains.
func Name(memberID string, attempt int) string {
	if attempt == 0 {
		return "member/" + memberID
	}
	return "member#" + strconv.Itoa(attempt) + "/" + memberID
}

// IDOf recovers the member id from a member actor's PID id (the parent's
// id, '/', then Name).
func IDOf(self, parent *actor.PID) string {
	name := strings.TrimPrefix(self.Id, parent.Id+"/")
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// Receive handles Started, Arm and the receive-timeout.
func (m *Actor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		ctx.Send(ctx.Parent(), &Started{MemberID: IDOf(ctx.Self(), ctx.Parent()), PID: ctx.Self()})
	case *Arm:
		m.deadline = 0
		if !msg.Deadline.IsZero() {
			m.deadline = msg.Deadline.UnixNano()
		}
		m.rearm(ctx)
	case *actor.ReceiveTimeout:
		if left := m.left(); left > 0 {
			// Fired early (the timer runs on the wall clock, the deadline may
			// have moved): wait for what is left.
			ctx.SetReceiveTimeout(left)
			return
		}
		// The timeout is off now; the group re-arms it (Arm) if the deadline
		// turns out to have moved, or stops this actor.
		ctx.Send(ctx.Parent(), &Due{MemberID: IDOf(ctx.Self(), ctx.Parent())})
	}
}

// rearm restarts the timeout for the current deadline. CancelReceiveTimeout
// first: SetReceiveTimeout ignores a duration equal to the current one.
func (m *Actor) rearm(ctx actor.Context) {
	ctx.CancelReceiveTimeout()
	if m.deadline == 0 {
		return
	}
	ctx.SetReceiveTimeout(max(m.left(), time.Millisecond))
}

// ArmedDeadline is the deadline the timer is armed for (zero: none).
func (m *Actor) ArmedDeadline() time.Time {
	if m.deadline == 0 {
		return time.Time{}
	}
	return time.Unix(0, m.deadline)
}

// left is the time until the deadline (on the wall clock: the deadline came as Unix time).
func (m *Actor) left() time.Duration { return time.Duration(m.deadline - m.now().UnixNano()) }

// Due is sent by a member actor to its group actor when its timer fired.
type Due struct {
	MemberID string
}

// Started is sent by a member actor on Started (also after a restart) to ask
// its group actor for its deadline; the group answers with Arm.
type Started struct {
	MemberID string
	PID      *actor.PID
}

// Arm sets a member actor's timer to fire at Deadline (zero: none).
type Arm struct {
	Deadline time.Time
}
