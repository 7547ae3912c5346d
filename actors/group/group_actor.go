package group

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/group/groupwire"
	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/wire"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// Props returns the props of the group actor for key.
func Props(key persistence.GroupKey, deps *Deps) *actor.Props {
	d := deps.withDefaults()
	return actor.PropsFromProducer(func() actor.Actor {
		return &groupActor{key: key, deps: d}
	}, supervision(d)...)
}

// GrainProps returns the props of the cluster kind "group": the actor takes
// its key from its cluster identity (IdentityOf).
func GrainProps(deps *Deps) *actor.Props {
	d := deps.withDefaults()
	// A grain is a child of the cluster's placement actor, which supervises it with
	// protoactor's default strategy (restart, at most 10 times in 10 s; then it stops
	// and the next request activates it afresh): no guardian here.
	return actor.PropsFromProducer(func() actor.Actor {
		return &groupActor{deps: d}
	}, actor.WithSupervisor(memberSupervisor), actor.WithReceiverMiddleware(d.groupHooks...), actor.WithDispatcher(actorWorkers))
}

// groupActor is the shell around one groupstate.Group. Fields below state are
// volatile: they are rebuilt on activation.
type groupActor struct {
	key  persistence.GroupKey
	deps *Deps

	reqID string // id of the request being handled, for log lines (requestid.go)

	state       *groupstate.Group // nil until activated
	activation  int64             // epoch taken from the store
	revision    int64             // store revision of the state in memory
	activatedAt time.Time
	confirmedAt time.Time // last time the store confirmed this activation
	// servableFrom: after fencing a live previous owner, answer nobody before this
	// (that owner's activation stops answering within validity of being told).
	servableFrom time.Time
	needsCheck   bool        // a takeover was announced; no round counts until a read confirms
	liveMarked   bool        // the live-group index holds this group for this activation
	idleSince    time.Time   // since when no member occupies the group (zero: occupied)
	carry        *model.Meta // epochs to continue from after the store lost the group
	lastErr      error       // why the last activation or write failed
	stopped      bool        // fenced or deleted: answer RETRY until the actor is gone
	gated        bool        // the rejoin gate holds it: not activated, answers RETRY (startgate.go)

	members  map[string]memberRef // the member actors (armMember)
	progress map[string][]protocol.ShardProgress
	retrying bool // a retryTimers message is scheduled
	// inFlight: memberId → revoking shard → reported work in flight (monitoring only, inflight.go).
	inFlight map[string]map[int]int
	// events: the latest fencings and expiries (monitoring only, events.go); fenceCause is why
	// the heartbeat whose change is being applied was refused with a fencing.
	events     eventRing
	fenceCause string
	// unsure: a write failed with an unknown outcome (it may have landed). Memory may be
	// behind the store (e.g. a member the store has expired, its shards free), so it is
	// reloaded before anything is answered from it again.
	unsure bool
	// fences: this activation's shard fences (fence.go).
	fences shardFences
	// refusals: identity refusals already logged (refusals.go), so a retrying duplicate
	// is logged once.
	refusals refusalLog
}

func (a *groupActor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		a.members = map[string]memberRef{}
		a.progress = map[string][]protocol.ShardProgress{}
		a.inFlight = map[string]map[int]int{}
		if a.key == (persistence.GroupKey{}) {
			// A cluster grain: its key is its cluster identity.
			key, err := keyOfIdentity(cluster.GetClusterIdentity(ctx).Identity)
			if err != nil {
				a.deps.Logger.Error("group grain with a malformed identity; stopping it", slog.Any("err", err))
				a.stopped = true
				ctx.Poison(ctx.Self())
				return
			}
			a.key = key
		}
		if why := a.deps.Node.Refusing(); why != "" {
			// Placed here while this node may not host groups: answer RETRY and stop; the
			// cluster places the group elsewhere once it knows.
			a.deps.Logger.Debug("not activating group", slog.String("group", a.key.String()), slog.String("reason", why))
			a.stopped = true
			ctx.Poison(ctx.Self())
			return
		}
		if gate(a, ctx) {
			return // held by the rejoin gate: dormant, answers RETRY (startgate.go)
		}
		a.deps.Node.GroupStarted(a.key, ctx.Self())
		if err := a.activate(ctx); err != nil {
			a.deps.Logger.Warn("group activation failed; will retry on the next request",
				slog.String("group", a.key.String()), a.reqAttr(), slog.Any("err", err))
		}
	case *NodeConfirmed:
		a.onNodeConfirmed(ctx, msg)
	case *StoreLost:
		a.onStoreLost(msg)
	case *actor.Restarting:
		a.onRestarting()
	case *actor.ReceiveTimeout:
		gatedIdle(a, ctx)
	case *actor.Stopping:
		switch {
		case a.gated:
			a.stopped = true // never activated nor registered with the node: nothing to release
		case !a.stopped && a.state != nil:
			// Stopped from outside (the cluster moved the grain, or the node is leaving):
			// give the activation up so that the next one needs no takeover wait.
			a.release(ctx, "stopped by the node (group moving to another node, or node leaving)")
		case !a.stopped:
			// Never activated (store down): nothing to release, but the host must forget it.
			a.stopped = true
			a.deps.Node.GroupStopped(a.key, ctx.Self())
		}
		a.members = map[string]memberRef{} // they stop with it; not to be re-spawned
	case *actor.Stopped:
	case *actor.Terminated:
		a.onMemberTerminated(ctx, msg.Who)
	case *memberStarted:
		a.onMemberStarted(ctx, msg)
	case *memberDue:
		a.onMemberDue(ctx, msg.MemberID)
	case *retryTimers:
		a.retrying = false
		if a.ready(ctx) != nil || !a.confirmed(a.deps.Now()) {
			a.scheduleRetry(ctx)
			return
		}
		a.commit(ctx, a.state.Tick(a.deps.Now()))
	case *groupmsg.PruneTick:
		if a.ready(ctx) == nil {
			now := a.deps.Now()
			// Also a safety net for member timers: protoactor-go's receive-timeout race
			// (issue #1139) can lose one, and a dead member would then block its shards for
			// good. A lost timeout makes an expiry at most one prune interval late.
			if a.confirmed(now) && !a.commit(ctx, a.state.Tick(now)) {
				return
			}
			a.commit(ctx, a.state.Prune(now))
		}
	case *wire.GroupRequest:
		// Forwarded by a node (maybe this one) through the cluster.
		now := a.deps.Now()
		req, err := groupwire.RequestFromWire(msg, now)
		// Heartbeats check their deadline themselves (they answer RETRY in the
		// protocol's shape, not an error).
		_, heartbeat := req.(*groupmsg.HeartbeatRequest)
		var out *wire.GroupReply
		switch {
		case err != nil:
			out = groupwire.ErrorReply(err)
		case !heartbeat && !groupwire.Deadline(msg, now).IsZero() && a.deps.Now().After(groupwire.Deadline(msg, now)):
			out = groupwire.ErrorReply(fmt.Errorf("group %s: the request waited too long in the queue and was not evaluated: %w", a.key, persistence.ErrUnavailable))
		default:
			out = groupwire.ReplyToWire(a.handle(ctx, req))
			if heartbeat && (a.gated || a.stopped) {
				// Answered RETRY unevaluated because the group is not activated
				// here (the rejoin gate holds it, or it is placed elsewhere):
				// FENCED tells the forwarding node to look the group up again
				// within the heartbeat's deadline rather than pass the RETRY on.
				out.Code, out.Error = wire.Code_FENCED, fmt.Sprintf("group %s is not activated on node %s", a.key, a.deps.NodeID)
			}
		}
		out.Node, out.ActivationEpoch = a.deps.NodeID, a.activation
		ctx.Respond(out)
	case *groupmsg.HeartbeatRequest:
		if msg.Reply != nil {
			reply := msg.ReplyTo
			if reply == nil {
				reply = &groupmsg.HeartbeatReply{}
			}
			reply.Response = a.heartbeat(ctx, msg)
			msg.Reply <- reply // room for one, and only this actor answers it; msg is the caller's again
			return
		}
		ctx.Respond(&groupmsg.HeartbeatReply{Response: a.heartbeat(ctx, msg)})
	default:
		if reply := a.handle(ctx, msg); reply != nil {
			ctx.Respond(reply)
		}
	}
}

// handle answers the requests a host sends (locally, or forwarded from
// another node as *wire.GroupRequest). Nil: not a request.
func (a *groupActor) handle(ctx actor.Context, msg any) any {
	a.reqID = requestIDOf(msg)
	defer func() { a.reqID = "" }()
	switch msg := msg.(type) {
	case *groupmsg.HeartbeatRequest:
		return &groupmsg.HeartbeatReply{Response: a.heartbeat(ctx, msg)}
	case *groupmsg.DescribeRequest:
		if err := a.ready(ctx); err != nil {
			return &groupmsg.Description{Err: err}
		}
		return a.describe()
	case *groupmsg.SampleRequest:
		return a.sample(ctx)
	case *groupmsg.DebugRequest:
		return a.debug(ctx)
	case *groupmsg.DeleteRequest:
		return a.delete(ctx, msg)
	case *groupmsg.ResizeRequest, *groupmsg.AssignmentRequest:
		return &groupmsg.ErrorReply{Err: groupChange(a, ctx, msg)}
	case *groupmsg.RebalancingRequest:
		return a.setRebalancing(ctx, msg)
	case *groupmsg.ReleaseRequest:
		if !a.stopped && a.state != nil {
			a.release(ctx, "node shutting down")
		}
		return &groupmsg.ErrorReply{}
	case *groupmsg.TouchRequest:
		err := a.ready(ctx)
		if err == nil && !a.stopped {
			// The sweep activated this group for its deadlines: evaluate them now.
			if now := a.deps.Now(); a.confirmed(now) {
				a.commit(ctx, a.state.Tick(now))
			}
		}
		return &groupmsg.ErrorReply{Err: err}
	}
	return nil
}

// ready makes sure the group is activated, trying again if an earlier
// activation failed (store down at start).
func (a *groupActor) ready(ctx actor.Context) error {
	if a.stopped {
		return fmt.Errorf("group %s: this activation was stopped: %w", a.key, persistence.ErrFenced)
	}
	if err := ungate(a, ctx); err != nil {
		return err
	}
	if a.state != nil && a.unsure {
		a.reload(ctx) // on failure: state nil (re-activate below) or stopped
		if a.stopped {
			return fmt.Errorf("group %s: this activation was stopped: %w", a.key, persistence.ErrFenced)
		}
	}
	if a.state == nil {
		if err := a.activate(ctx); err != nil {
			return err
		}
	}
	return a.syncFences()
}

func (a *groupActor) storeCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), a.deps.StoreTimeout)
}

// commit persists a change (when durable) and applies it. On a failed write
// memory stays unchanged and the timers are retried shortly.
func (a *groupActor) commit(ctx actor.Context, c *groupstate.Change) bool {
	if c == nil {
		return true
	}
	if err := a.persist(ctx, c); err != nil {
		a.scheduleRetry(ctx)
		return false
	}
	applyNudging(a, ctx, c, "")
	return true
}

func (a *groupActor) onMemberDue(ctx actor.Context, memberID string) {
	a.disarmed(memberID) // its timer is off now: armMember must set it again
	now := a.deps.Now()
	if a.ready(ctx) != nil || !a.confirmed(now) {
		// Unconfirmed (store unreachable): expiring now would punish members
		// for the store's outage. Once confirmed again every member gets a
		// fresh lease (onConfirm).
		a.scheduleRetry(ctx)
		return
	}
	c := a.state.Expire(memberID, now)
	if c == nil {
		// Not expired: a heartbeat moved the deadline, or the member is overdue (its
		// lease ends within an interval: the others are told to heartbeat sooner).
		a.state.MarkOverdue(memberID, now)
		a.armMember(ctx, memberID)
		return
	}
	a.commit(ctx, c)
}

// retryTimers is sent to self when a timer-driven write failed and must be
// tried again.
type retryTimers struct{}

// scheduleRetry asks for a timer evaluation in one second, once.
func (a *groupActor) scheduleRetry(ctx actor.Context) {
	if a.retrying || a.stopped {
		return
	}
	a.retrying = true
	self, root := ctx.Self(), ctx.ActorSystem().Root
	time.AfterFunc(time.Second, func() { root.Send(self, &retryTimers{}) })
}

// stop ends this activation for good (fenced by a newer one, or deleted).
func (a *groupActor) stop(ctx actor.Context, why string) {
	if a.stopped {
		return
	}
	a.stopped = true
	a.logStop(why)
	a.halt(ctx)
}

// halt stops the member actors and this actor; a.stopped is already set.
func (a *groupActor) halt(ctx actor.Context) {
	for id, ref := range a.members {
		ctx.Stop(ref.pid)
		delete(a.members, id)
	}
	a.deps.Metrics.Members(a.key, nil)
	a.deps.Node.GroupStopped(a.key, ctx.Self())
	ctx.Poison(ctx.Self())
}

func (a *groupActor) delete(ctx actor.Context, msg *groupmsg.DeleteRequest) *groupmsg.DeleteReply {
	if err := a.ready(ctx); err != nil {
		return &groupmsg.DeleteReply{Err: err}
	}
	// LEAVING members still drain and FENCED ones may still read their shards: a re-created
	// group would hand those out at once, so they count as live here.
	live := a.state.Occupied()
	if live > 0 && !msg.Force {
		return &groupmsg.DeleteReply{LiveMembers: live}
	}
	cleared, err := a.fenceBook().clear(a.state)
	if err != nil {
		return &groupmsg.DeleteReply{LiveMembers: live, Err: err} // nothing deleted; the caller may retry
	}
	sctx, cancel := a.storeCtx()
	defer cancel()
	if err := a.deps.Store.DeleteGroup(sctx, a.key, a.activation); err != nil {
		a.fenceBook().markStale(cleared) // the group lives on: its holders get their fences back
		if errors.Is(err, persistence.ErrBehind) {
			a.lost(ctx, "delete found the store behind: "+err.Error())
		} else if errors.Is(err, persistence.ErrFenced) {
			a.stop(ctx, "fenced by a newer activation")
		} else {
			a.unsure = true // the delete may have landed
		}
		return &groupmsg.DeleteReply{LiveMembers: live, Err: err}
	}
	if a.liveMarked {
		_ = a.deps.Store.UnmarkLive(sctx, a.key, a.activation)
	}
	a.stop(ctx, "group deleted")
	return &groupmsg.DeleteReply{Deleted: true, LiveMembers: live}
}
