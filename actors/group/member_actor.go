package group

import (
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// memberActor embodies one member's lease: a timer set for the member's next
// deadline. It keeps no rules; when the timer fires it tells the group actor,
// which decides with groupstate whether the deadline really passed.
//
// It holds nothing the group cannot give back: on Started (also after a
// supervisor restart) it asks the group for its deadline (memberStarted), and
// the group answers with arm.
//
// The timer is a time.AfterFunc owned by this actor, not protoactor's
// receive-timeout: the library's timer races with message handling (issue
// #1139) and can be lost, and every user message would restart it. Here a
// timer only ever sends a leaseTimer message carrying its generation; the
// actor ignores any generation but the latest, so a timer stopped too late is
// harmless, and a newly armed timer always fires.
type memberActor struct {
	memberID string
	now      func() time.Time
	deadline time.Time
	timer    *time.Timer
	gen      uint64 // generation of the armed timer
}

// timerGens hands out timer generations, unique across incarnations so that
// a timer of a crashed incarnation cannot pass for the new one's.
var timerGens atomic.Uint64

func newMemberProps(memberID string, d *Deps) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &memberActor{memberID: memberID, now: d.Now}
	}, actor.WithReceiverMiddleware(d.memberHooks...))
}

func (m *memberActor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		ctx.Send(ctx.Parent(), &memberStarted{memberID: m.memberID, pid: ctx.Self()})
	case *arm:
		m.deadline = msg.deadline
		m.rearm(ctx)
	case *leaseTimer:
		if msg.gen != m.gen {
			return // superseded by a later arm
		}
		if left := m.deadline.Sub(m.now()); left > 0 {
			m.rearm(ctx) // fired early (the clock moved less than the timer)
			return
		}
		ctx.Send(ctx.Parent(), &memberDue{memberID: m.memberID})
	case *actor.Stopping, *actor.Restarting:
		m.stopTimer()
	}
}

// rearm replaces the timer by one for the current deadline.
func (m *memberActor) rearm(ctx actor.Context) {
	m.stopTimer()
	if m.deadline.IsZero() {
		return
	}
	left := max(m.deadline.Sub(m.now()), time.Millisecond)
	gen, self, root := timerGens.Add(1), ctx.Self(), ctx.ActorSystem().Root
	m.gen = gen
	m.timer = time.AfterFunc(left, func() { root.Send(self, &leaseTimer{gen: gen}) })
}

func (m *memberActor) stopTimer() {
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
	m.gen = 0
}
