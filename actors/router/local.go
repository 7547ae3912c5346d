package router

import (
	"fmt"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/persistence"
)

// A local heartbeat is answered through a channel in the message
// (groupmsg.HeartbeatRequest.Reply) instead of a protoactor future: no process
// registry entry and no future timer per request, and the channel, the wait
// timer, the message and the reply (HeartbeatRequest.ReplyTo) are reused: a
// node allocates none of them per heartbeat. Like the future's, the wait ends at the timeout, and
// a request its actor could not receive (stopped between lookup and send) is
// reported back (onDeadLetter) and sent once more to a fresh actor.
//
// The wait timer is not stopped after an answer, nor reset for the next call
// while it is set to fire no later than that call's deadline: it then fires
// early (at an earlier call's deadline), and only then is it reset for what
// is left. With the same timeout for every call, a pooled call resets its
// timer about once per timeout instead of twice per heartbeat.

type localCall struct {
	req   groupmsg.HeartbeatRequest // the message sent; the actor is done with it once it replied
	rep   groupmsg.HeartbeatReply   // where the actor writes its reply (req.ReplyTo)
	reply chan *groupmsg.HeartbeatReply
	timer *time.Timer
	armed bool      // timer set to fire at `at` (its value may be waiting in timer.C)
	at    time.Time // when the timer fires, if armed
}

var localCalls = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &localCall{reply: make(chan *groupmsg.HeartbeatReply, 1), timer: t}
}}

// arm makes the timer fire no later than deadline.
func (c *localCall) arm(now, deadline time.Time) {
	if c.armed && !c.at.After(deadline) {
		return
	}
	c.timer.Reset(deadline.Sub(now))
	c.armed, c.at = true, deadline
}

// askHeartbeat is ask for a heartbeat on this node. hb is copied into a pooled
// call, which goes back to the pool only once answered: a call whose wait ran out
// may still be read and answered by the actor, and is left to the collector.
func (r *Router) askHeartbeat(key persistence.GroupKey, hb *groupmsg.HeartbeatRequest, timeout time.Duration) (groupmsg.HeartbeatReply, error) {
	call := localCalls.Get().(*localCall)
	call.req = *hb
	call.req.Reply, call.req.ReplyTo = call.reply, &call.rep
	// The wait runs on the wall clock of its timer, not on Options.Now (a test's clock
	// may stand still); hb.Deadline, which the group checks, is on Options.Now.
	now := time.Now()
	deadline := now.Add(timeout)
	call.arm(now, deadline)
	for attempt := 0; ; attempt++ {
		pid := r.PID(key)
		r.o.System.Root.Send(pid, &call.req)
		rep, ok := call.wait(deadline)
		switch {
		case !ok:
			// The actor may still read the request and answer on call.reply: the call is not reused.
			return groupmsg.HeartbeatReply{}, fmt.Errorf("group %s did not answer within %s: %w", key, timeout, coordinator.ErrUnavailable)
		case rep != groupmsg.DeadLetterReply:
			out := *rep
			call.release() // answered: the actor is done with the request and the reply
			return out, nil
		}
		r.dropDead(key, pid)
		if attempt > 0 {
			call.release()
			return groupmsg.HeartbeatReply{}, fmt.Errorf("group %s: %w", key, coordinator.ErrGroupMoving)
		}
	}
}

// release puts c back into the pool, keeping no request or response data alive.
func (c *localCall) release() {
	c.req, c.rep = groupmsg.HeartbeatRequest{}, groupmsg.HeartbeatReply{}
	localCalls.Put(c)
}

// wait returns the answer on c.reply, or false once deadline has passed.
func (c *localCall) wait(deadline time.Time) (*groupmsg.HeartbeatReply, bool) {
	for {
		select {
		case r := <-c.reply:
			return r, true
		case <-c.timer.C:
			c.armed = false
			now := time.Now()
			if !now.Before(deadline) {
				return nil, false
			}
			c.arm(now, deadline) // it fired at an earlier call's deadline
		}
	}
}

// onDeadLetter tells a local heartbeat caller that its request was not
// delivered (subscribed to the actor system's event stream in New).
func onDeadLetter(evt any) {
	dl, ok := evt.(*actor.DeadLetterEvent)
	if !ok {
		return
	}
	if hb, ok := dl.Message.(*groupmsg.HeartbeatRequest); ok && hb.Reply != nil {
		select {
		case hb.Reply <- groupmsg.DeadLetterReply:
		default:
		}
	}
}
