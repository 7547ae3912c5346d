package router

import (
	"context"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/persistence"
)

// timeout is what is left of ctx's deadline, at most the request timeout:
// the one deadline of a request.
func (r *Router) timeout(ctx context.Context) time.Duration {
	timeout := r.o.RequestTimeout
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < timeout {
			timeout = left
		}
	}
	return timeout
}

// ask sends msg to the group actor and waits for its reply until ctx's
// deadline (at most the request timeout).
func (r *Router) ask(ctx context.Context, key persistence.GroupKey, msg any) (any, error) {
	return r.askWithin(r.timeout(ctx), key, msg)
}

// askWithin is ask bounded by timeout (and the request timeout): refused
// while the node refuses to serve; through the cluster in cluster mode; else
// to the local actor, spawning it if needed. A dead local actor (stopped
// between lookup and send) is dropped and asked once more.
func (r *Router) askWithin(timeout time.Duration, key persistence.GroupKey, msg any) (any, error) {
	timeout = min(timeout, r.o.RequestTimeout)
	if timeout <= 0 {
		return nil, fmt.Errorf("group %s: %w", key, context.DeadlineExceeded)
	}
	if err := r.Refusal(); err != nil {
		return nil, err
	}
	if r.Clustered() {
		return r.askCluster(key, msg, timeout)
	}
	if hb, ok := msg.(*groupmsg.HeartbeatRequest); ok {
		rep, err := r.askHeartbeat(key, hb, timeout)
		if err != nil {
			return nil, err
		}
		return &rep, nil
	}
	for attempt := 0; ; attempt++ {
		pid := r.PID(key)
		res, err := r.o.System.Root.RequestFuture(pid, msg, timeout).Result()
		if err != nil {
			return nil, fmt.Errorf("group %s did not answer within %s: %w", key, timeout, coordinator.ErrUnavailable)
		}
		if _, dead := res.(*actor.DeadLetterResponse); dead {
			r.dropDead(key, pid)
			if attempt == 0 {
				continue
			}
			return nil, fmt.Errorf("group %s: %w", key, coordinator.ErrGroupMoving)
		}
		return res, nil
	}
}

// unexpected is the error for a reply of the wrong type.
func unexpected(key persistence.GroupKey, res any) error {
	return fmt.Errorf("group %s answered %T: %w", key, res, coordinator.ErrGroupMoving)
}
