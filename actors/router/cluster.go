package router

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/group/groupwire"
	"github.com/redisstream/coordinator/actors/wire"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/persistence"
)

// maxInflightGrainRequests bounds the cluster requests of one node that are
// waiting for an answer (also those whose caller already gave up).
const maxInflightGrainRequests = 20_000

// askCluster forwards msg to the group's grain, wherever the cluster places
// it, and waits for the reply until timeout. A grain that stopped between
// lookup and delivery is looked up again.
func (r *Router) askCluster(key persistence.GroupKey, msg any, timeout time.Duration) (any, error) {
	start := r.o.Now()
	req, err := groupwire.RequestToWire(msg, start)
	if err != nil {
		return nil, err
	}
	req.FromNode = r.o.NodeID
	id := group.IdentityOf(key)
	deadline := start.Add(timeout)
	if req.DeadlineUnixNano == 0 {
		groupwire.
			// Every forwarded request carries a deadline: one still queued (or still being
			// delivered by a lookup that outlived its caller) when nobody waits any more is not
			// evaluated — a DELETE answered 503 must not run later.
			SetDeadline(req, deadline, start)
	}
	op := opName(req)
	var notHere any // the last heartbeat answer of a grain not activated on its node
	for attempt := 0; ; attempt++ {
		left := deadline.Sub(r.o.Now())
		if left <= 0 && notHere != nil {
			r.observeGrain(op, id, start, "unavailable")
			return notHere, nil // its RETRY, in the protocol's shape
		}
		if left <= 0 {
			r.observeGrain(op, id, start, "unavailable")
			return nil, fmt.Errorf("group %s could not be placed or did not answer within %s: %w", key, timeout, coordinator.ErrGroupMoving)
		}
		res, err := r.requestGrain(id, req, left)
		if err != nil && notHere != nil {
			r.observeGrain(op, id, start, "unavailable")
			return notHere, nil
		}
		if err != nil {
			r.observeGrain(op, id, start, "unavailable")
			return nil, fmt.Errorf("group %s did not answer within %s: %v: %w", key, timeout, err, coordinator.ErrGroupMoving)
		}
		switch rep := res.(type) {
		case *wire.GroupReply:
			out, err := groupwire.ReplyFromWire(msg, rep)
			if _, hb := msg.(*groupmsg.HeartbeatRequest); hb && err == nil && rep.GetCode() == wire.Code_FENCED {
				// The grain is not activated on its node: held while the group is
				// handed over, or placed there by a member list that has not yet
				// converged (a node joining). Look it up again until the
				// heartbeat's deadline instead of bouncing a RETRY to the member.
				notHere = out
				r.cl.Load().PidCache.Remove(id, group.Kind)
				time.Sleep(min(time.Duration(attempt+1)*20*time.Millisecond, 100*time.Millisecond, max(left, 0)))
				continue
			}
			outcome := "ok"
			if rep.GetCode() != wire.Code_OK {
				outcome = "error"
			}
			r.observeGrain(op, id, start, outcome)
			if hb, ok := out.(*groupmsg.HeartbeatReply); ok && err == nil && memberKnown(hb.Response.Status) {
				r.keepKnown(key)
			}
			return out, err
		case *actor.DeadLetterResponse:
			// The grain stopped (passivated, moved, fenced): look it up again.
			r.cl.Load().PidCache.Remove(id, group.Kind)
			time.Sleep(min(10*time.Millisecond, left))
		default:
			r.observeGrain(op, id, start, "unavailable")
			return nil, unexpected(key, res)
		}
	}
}

// requestGrain is one cluster request that returns by timeout at the latest.
// protoactor's lookup of a grain's PID asks the placement node with a fixed
// 5 s timeout that the request's own timeout does not cut short (a node that
// is shutting down, or paused, answers nothing): the call then goes on in
// the background, and the caller answers RETRY in time.
func (r *Router) requestGrain(id string, req *wire.GroupRequest, timeout time.Duration) (any, error) {
	type result struct {
		res any
		err error
	}
	// Calls stuck behind a silent node outlive their callers by up to the lookup's 5 s:
	// bounded, so that a paused node under heavy traffic cannot pile up goroutines.
	if r.inflight.Add(1) > maxInflightGrainRequests {
		r.inflight.Add(-1)
		return nil, fmt.Errorf("%d requests to group grains are still waiting for an answer", maxInflightGrainRequests)
	}
	done := make(chan result, 1)
	go func() {
		defer r.inflight.Add(-1)
		res, err := r.cl.Load().Request(id, group.Kind, req, cluster.WithTimeout(timeout), cluster.WithRetryCount(1<<20),
			cluster.WithRetryAction(func(i int) int {
				time.Sleep(min(time.Duration(i+1)*10*time.Millisecond, 100*time.Millisecond))
				return i + 1
			}))
		done <- result{res, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case res := <-done:
		return res.res, res.err
	case <-t.C:
		return nil, fmt.Errorf("no answer within %s", timeout)
	}
}

func (r *Router) observeGrain(op, id string, start time.Time, outcome string) {
	m := r.o.Metrics
	if m == nil {
		return
	}
	remote := false
	if pid, ok := r.cl.Load().PidCache.Get(id, group.Kind); ok && pid != nil {
		remote = pid.Address != r.o.System.Address()
	}
	m.GrainRequest(op, remote, r.o.Now().Sub(start), outcome)
}

func opName(r *wire.GroupRequest) string {
	switch r.Op.(type) {
	case *wire.GroupRequest_Heartbeat:
		return "heartbeat"
	case *wire.GroupRequest_Describe:
		return "describe"
	case *wire.GroupRequest_Debug:
		return "debug"
	case *wire.GroupRequest_Delete:
		return "delete"
	case *wire.GroupRequest_Resize:
		return "resize"
	case *wire.GroupRequest_Release:
		return "release"
	case *wire.GroupRequest_Touch:
		return "touch"
	}
	return "other"
}
