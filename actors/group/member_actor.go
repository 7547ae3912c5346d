package group

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// memberActor embodies one member's lease: its receive-timeout is armed for
// the member's next deadline. It keeps no rules; when the timer fires it tells
// the group actor, which decides with groupstate whether the deadline really
// passed (the timer message can be queued behind a heartbeat's re-arm).
type memberActor struct {
	memberID string
	now      func() time.Time
	deadline time.Time
}

func newMemberProps(memberID string, now func() time.Time, deadline time.Time) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &memberActor{memberID: memberID, now: now, deadline: deadline}
	})
}

func (m *memberActor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		m.rearm(ctx)
	case *arm:
		m.deadline = msg.deadline
		m.rearm(ctx)
	case *actor.ReceiveTimeout:
		if left := m.deadline.Sub(m.now()); left > 0 {
			// Fired early (the timer runs on the wall clock, the deadline may
			// have moved): wait for what is left.
			ctx.SetReceiveTimeout(left)
			return
		}
		ctx.Send(ctx.Parent(), &memberDue{memberID: m.memberID})
	}
}

// rearm restarts the timer for the current deadline. CancelReceiveTimeout
// first: SetReceiveTimeout ignores a duration equal to the current one.
func (m *memberActor) rearm(ctx actor.Context) {
	ctx.CancelReceiveTimeout()
	if m.deadline.IsZero() {
		return
	}
	left := m.deadline.Sub(m.now())
	if left < time.Millisecond {
		left = time.Millisecond
	}
	ctx.SetReceiveTimeout(left)
}
