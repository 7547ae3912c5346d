package router

import (
	"context"
	"time"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/persistence"
)

// The typed requests to a group's activation. Each waits until ctx's
// deadline at most (and the request timeout); errors are the service's
// sentinels (coordinator.ErrUnavailable, ErrGroupMoving, and what GroupErr
// makes of the group's own error) unless a method says otherwise.

// Heartbeat sends one heartbeat to the group and waits for its reply until
// req.Deadline (on the node's clock; zero: set here), capped by ctx's
// deadline and the request timeout. The caller checks first whether the
// node refuses to serve: a local heartbeat does not check again (a
// forwarded one does). The request and the reply are passed by value: a local
// heartbeat travels in a pooled request and is answered into a pooled reply, so that
// it allocates neither (docs/BENCHMARKS.md, "Memory per member").
func (r *Router) Heartbeat(ctx context.Context, key persistence.GroupKey, req groupmsg.HeartbeatRequest) (groupmsg.HeartbeatReply, error) {
	timeout := r.timeout(ctx)
	now := r.o.Now()
	if req.Deadline.IsZero() {
		req.Deadline = now.Add(timeout)
	} else {
		timeout = min(timeout, req.Deadline.Sub(now))
	}
	if !r.Clustered() && timeout > 0 {
		return r.askHeartbeat(key, &req, timeout)
	}
	msg := req // only this path's message leaves the call (a cluster request)
	res, err := r.askWithin(timeout, key, &msg)
	if err != nil {
		return groupmsg.HeartbeatReply{}, err
	}
	hb, ok := res.(*groupmsg.HeartbeatReply)
	if !ok {
		return groupmsg.HeartbeatReply{}, unexpected(key, res)
	}
	return *hb, nil
}

// Describe asks the group for its monitoring views (activating it where it
// lives). A group that reported an error returns its Description too.
func (r *Router) Describe(ctx context.Context, key persistence.GroupKey) (*groupmsg.Description, error) {
	return askDescription(ctx, r, key, &groupmsg.DescribeRequest{})
}

// askDescription sends msg, a request the group answers with its Description, and maps
// the group's own error with GroupErr (the Description comes back with it).
func askDescription(ctx context.Context, r *Router, key persistence.GroupKey, msg any) (*groupmsg.Description, error) {
	res, err := r.ask(ctx, key, msg)
	if err != nil {
		return nil, err
	}
	d, ok := res.(*groupmsg.Description)
	if !ok {
		return nil, unexpected(key, res)
	}
	if d.Err != nil {
		return d, GroupErr(key, d.Err)
	}
	return d, nil
}

// Delete asks the group to delete its stored state. The reply comes back
// also with the group's error (then mapped by GroupErr).
func (r *Router) Delete(ctx context.Context, key persistence.GroupKey, req *groupmsg.DeleteRequest) (*groupmsg.DeleteReply, error) {
	res, err := r.ask(ctx, key, req)
	if err != nil {
		return nil, err
	}
	d, ok := res.(*groupmsg.DeleteReply)
	if !ok {
		return nil, unexpected(key, res)
	}
	if d.Err != nil {
		return d, GroupErr(key, d.Err)
	}
	return d, nil
}

// Resize tells the group its stream's new shard set. The group's own error
// comes back as the group reported it (the resharding driver records it);
// GroupErr maps it.
func (r *Router) Resize(ctx context.Context, key persistence.GroupKey, req *groupmsg.ResizeRequest) error {
	return r.errorReply(ctx, key, req)
}

// SetAssignment sets the group's assignment mode; the group's own error comes back as it
// reported it (GroupErr maps it).
func (r *Router) SetAssignment(ctx context.Context, key persistence.GroupKey, req *groupmsg.AssignmentRequest) error {
	return r.errorReply(ctx, key, req)
}

// Touch activates the group where it lives and waits until it is ready; the
// group's own error comes back as it reported it.
func (r *Router) Touch(ctx context.Context, key persistence.GroupKey) error {
	return r.errorReply(ctx, key, &groupmsg.TouchRequest{})
}

func (r *Router) errorReply(ctx context.Context, key persistence.GroupKey, msg any) error {
	res, err := r.ask(ctx, key, msg)
	if err != nil {
		return err
	}
	er, ok := res.(*groupmsg.ErrorReply)
	if !ok {
		return unexpected(key, res)
	}
	return er.Err
}

// Debug asks the group for its live actor state.
func (r *Router) Debug(ctx context.Context, key persistence.GroupKey) (*groupmsg.DebugState, error) {
	res, err := r.ask(ctx, key, &groupmsg.DebugRequest{})
	if err != nil {
		return nil, err
	}
	d, ok := res.(*groupmsg.DebugState)
	if !ok {
		return nil, unexpected(key, res)
	}
	return d, nil
}

// Within is what is left of ctx's deadline, at most the request timeout:
// the bound of a view that asks many actors at once (LocalDebug).
func (r *Router) Within(ctx context.Context) time.Duration { return r.timeout(ctx) }
