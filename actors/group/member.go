package group

import (
	"strconv"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// memberActor embodies one member's lease: its receive-timeout is armed for
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
// supervisor restart) it asks the group for its deadline (memberStarted), and
// the group answers with memberArm.
//
// It is kept cheap because a node runs one per member (100,000s): every
// member actor of a node is spawned from one shared Props (newMemberProps)
// and reads its member id from its own name when it needs it (memberActorName,
// memberIDOf: a substring, no copy), so that nothing
// per member is allocated beyond what protoactor needs for an actor with a
// receive-timeout; its mailbox (memberMailbox) is one small record that holds
// no queue array while empty (docs/BENCHMARKS.md, "Memory per member").
//
// protoactor-go's receive-timeout can, rarely, be lost (its timer races with
// message handling, upstream issue #1139). The group actor's periodic
// PruneTick therefore also evaluates every deadline (groupstate.Tick): a lost
// timeout delays an expiry by at most one prune interval
// (docs/RELIABILITY.md §3).
type memberActor struct {
	now      func() time.Time
	deadline int64 // Unix nanoseconds; 0 = none (16 bytes per actor, not 32)
}

// newMemberProps returns the Props every member actor of a node is spawned from (one per
// group.Deps): now is the node's clock, hooks its receiver middleware.
func newMemberProps(now func() time.Time, hooks ...actor.ReceiverMiddleware) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &memberActor{now: now}
	}, actor.WithMailbox(newMemberMailbox), actor.WithReceiverMiddleware(hooks...), actor.WithDispatcher(actorWorkers))
}

// memberActorName is the child name of a member actor: "member/<id>", or, when a
// previous actor of that name is still stopping, "member#<n>/<id>". The
// member id is everything after the first '/', whatever it contains.
func memberActorName(memberID string, attempt int) string {
	if attempt == 0 {
		return "member/" + memberID
	}
	return "member#" + strconv.Itoa(attempt) + "/" + memberID
}

// memberIDOf recovers the member id from a member actor's PID id (the parent's
// id, '/', then memberActorName).
func memberIDOf(self, parent *actor.PID) string {
	name := strings.TrimPrefix(self.Id, parent.Id+"/")
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// Receive handles Started, memberArm and the receive-timeout.
func (m *memberActor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		ctx.Send(ctx.Parent(), &memberStarted{MemberID: memberIDOf(ctx.Self(), ctx.Parent()), PID: ctx.Self()})
	case *memberArm:
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
		// The timeout is off now; the group re-arms it (memberArm) if the deadline
		// turns out to have moved, or stops this actor.
		ctx.Send(ctx.Parent(), &memberDue{MemberID: memberIDOf(ctx.Self(), ctx.Parent())})
	}
}

// rearm restarts the timeout for the current deadline. CancelReceiveTimeout
// first: SetReceiveTimeout ignores a duration equal to the current one.
func (m *memberActor) rearm(ctx actor.Context) {
	ctx.CancelReceiveTimeout()
	if m.deadline == 0 {
		return
	}
	ctx.SetReceiveTimeout(max(m.left(), time.Millisecond))
}

// armedDeadline is the deadline the timer is armed for (zero: none).
func (m *memberActor) armedDeadline() time.Time {
	if m.deadline == 0 {
		return time.Time{}
	}
	return time.Unix(0, m.deadline)
}

// left is the time until the deadline (on the wall clock: the deadline came as Unix time).
func (m *memberActor) left() time.Duration { return time.Duration(m.deadline - m.now().UnixNano()) }

// memberDue is sent by a member actor to its group actor when its timer fired.
type memberDue struct {
	MemberID string
}

// memberStarted is sent by a member actor on Started (also after a restart) to ask
// its group actor for its deadline; the group answers with memberArm.
type memberStarted struct {
	MemberID string
	PID      *actor.PID
}

// memberArm sets a member actor's timer to fire at Deadline (zero: none).
type memberArm struct {
	Deadline time.Time
}
