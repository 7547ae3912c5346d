package host

import (
	"fmt"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/api"
	"github.com/redisstream/coordinator/persistence"
)

// A local heartbeat is answered through a channel in the message
// (group.HeartbeatRequest.Reply) instead of a protoactor future: no process
// registry entry and no future timer per request, and the channel and the
// wait timer are reused. Like the future's, the wait ends at the timeout, and
// a request its actor could not receive (stopped between lookup and send) is
// reported back (onDeadLetter) and sent once more to a fresh actor.

type localCall struct {
	reply chan *group.HeartbeatReply
	timer *time.Timer
}

var localCalls = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &localCall{reply: make(chan *group.HeartbeatReply, 1), timer: t}
}}

// askHeartbeat is ask for a heartbeat on this node; pid, when not nil, is the
// group's actor as just looked up.
func (h *Host) askHeartbeat(key persistence.GroupKey, pid *actor.PID, hb *group.HeartbeatRequest, timeout time.Duration) (any, error) {
	call := localCalls.Get().(*localCall)
	hb.Reply = call.reply
	call.timer.Reset(timeout)
	for attempt := 0; ; attempt++ {
		if pid == nil || attempt > 0 {
			pid = h.pid(key)
		}
		h.system.Root.Send(pid, hb)
		select {
		case r := <-call.reply:
			if r != group.DeadLetterReply {
				call.timer.Stop()
				localCalls.Put(call) // answered: nothing more will be sent on it
				return r, nil
			}
			h.dropDead(key, pid)
			if attempt == 0 {
				continue
			}
			call.timer.Stop()
			localCalls.Put(call)
			return nil, fmt.Errorf("group %s: %w", key, api.ErrGroupMoving)
		case <-call.timer.C:
			// The actor may still answer on call.reply: the call is not reused.
			return nil, fmt.Errorf("group %s did not answer within %s: %w", key, timeout, api.ErrUnavailable)
		}
	}
}

// dropDead forgets a group actor that turned out to be gone.
func (h *Host) dropDead(key persistence.GroupKey, pid *actor.PID) {
	h.mu.Lock()
	if h.groups[key] == pid {
		delete(h.groups, key)
	}
	h.mu.Unlock()
}

// onDeadLetter tells a local heartbeat caller that its request was not
// delivered (subscribed to the actor system's event stream in New).
func onDeadLetter(evt any) {
	dl, ok := evt.(*actor.DeadLetterEvent)
	if !ok {
		return
	}
	if hb, ok := dl.Message.(*group.HeartbeatRequest); ok && hb.Reply != nil {
		select {
		case hb.Reply <- group.DeadLetterReply:
		default:
		}
	}
}
