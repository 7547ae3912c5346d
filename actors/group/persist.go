package group

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/persistence"
)

// persist writes a durable change with the activation epoch and the expected
// revision, after the shard fences it moves (fence.go). A non-durable change
// is not written. On ErrFenced the activation stops (a newer one owns the
// group); on ErrConflict (the outcome of an earlier write was unknown and it
// did land) the state is reloaded. Memory is never changed by a failed write.
func (a *groupActor) persist(ctx actor.Context, c *groupstate.Change) error {
	if !c.Durable {
		return nil
	}
	a.markBefore(c)
	if err := a.writeFences(c); err != nil {
		return err // nothing saved, memory unchanged: the same path as a failed save
	}
	err := a.save(c)
	if err != nil {
		a.fenceBook().saveFailed(c)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, persistence.ErrBehind):
		a.lost(ctx, "a write found the store behind this activation: "+err.Error())
	case errors.Is(err, persistence.ErrFenced):
		a.stop(ctx, "fenced: a newer activation of this group exists")
	case errors.Is(err, persistence.ErrConflict):
		a.deps.Logger.Warn("store revision moved under this activation; reloading",
			slog.String("group", a.key.String()), a.reqAttr(), slog.Any("err", err))
		a.reload(ctx)
	default:
		a.deps.Logger.Warn("group write failed; members are told to retry",
			slog.String("group", a.key.String()), a.reqAttr(), slog.Any("err", err))
		a.unsure = true // it may have landed: reload before answering from memory
	}
	return err
}

// save encodes and writes one change; it moves a.revision on success.
func (a *groupActor) save(c *groupstate.Change) error {
	gc, err := encodeChange(c)
	if err != nil {
		return err
	}
	evs := transitions(a.state, c, a.fenceCause, a.deps.Now)
	if len(evs) > 0 {
		gc.Events = a.events.encodeWith(evs) // with the write that records them: no write of its own
	}
	sctx, cancel := a.storeCtx()
	defer cancel()
	start := a.deps.Now()
	rev, err := a.deps.Store.SaveGroup(sctx, a.key, a.activation, a.revision, gc)
	a.deps.Metrics.Persist(a.deps.Now().Sub(start), err)
	if err != nil {
		return err // the store's error names the group already
	}
	a.revision = rev
	for _, e := range evs {
		a.events.add(e)
	}
	a.confirmedAt = start // the write proved the activation current after start (see onConfirm)
	return nil
}

func encodeChange(c *groupstate.Change) (persistence.GroupChange, error) {
	var gc persistence.GroupChange
	if c.Meta != nil {
		b, err := json.Marshal(c.Meta)
		if err != nil {
			return gc, fmt.Errorf("encode group meta: %w", err)
		}
		gc.Meta = b
	}
	if len(c.Members) > 0 {
		gc.PutMembers = make(map[string][]byte, len(c.Members))
		for i := range c.Members {
			b, err := json.Marshal(&c.Members[i])
			if err != nil {
				return gc, fmt.Errorf("encode member %q: %w", c.Members[i].ID, err)
			}
			gc.PutMembers[c.Members[i].ID] = b
		}
	}
	gc.DeleteMembers = c.Removed
	return gc, nil
}

// reload replaces memory with what the store holds for this activation.
func (a *groupActor) reload(ctx actor.Context) {
	sctx, cancel := a.storeCtx()
	defer cancel()
	snap, err := a.deps.Store.LoadGroup(sctx, a.key)
	if err == nil && a.state != nil && (snap.ActivationEpoch < a.activation || snap.Revision < a.revision) {
		// Older than what this activation wrote or took: the store lost writes (a failover
		// to a lagging replica). Adopting it silently could grant a shard a member still reads.
		a.lost(ctx, fmt.Sprintf("the store holds activation %d revision %d, older than this activation's %d/%d",
			snap.ActivationEpoch, snap.Revision, a.activation, a.revision))
		return
	}
	if err == nil && snap.ActivationEpoch != a.activation {
		err = persistence.ErrFenced
	}
	var stream persistence.StreamRecord
	if err == nil {
		stream, err = a.deps.Store.GetStream(sctx, a.key.StreamPrefix)
	}
	var state *groupstate.Group
	if err == nil {
		now := a.deps.Now()
		state, err = restore(a.deps.Rules, a.key, stream, snap, now, now)
	}
	if err != nil {
		a.deps.Logger.Warn("group reload failed; will re-activate", slog.String("group", a.key.String()), a.reqAttr(), slog.Any("err", err))
		if errors.Is(err, persistence.ErrFenced) {
			a.stop(ctx, "fenced: a newer activation of this group exists")
			return
		}
		if errors.Is(err, persistence.ErrNotFound) && a.state != nil {
			a.lost(ctx, "the group's stored state is gone: "+err.Error())
			return
		}
		a.state = nil
		return
	}
	// A grant hold is volatile: carry this activation's over, and the node's (or this
	// group's) hold recorded since, into the reloaded state.
	if a.state != nil {
		state.HoldGrantsUntil(a.state.GrantsHeldUntil())
	}
	state.HoldGrantsUntil(a.deps.Node.Hold(a.key))
	a.quietHold(state, a.activatedAt)
	a.state, a.revision, a.unsure = state, snap.Revision, false
	a.events.restore(snap.Events)
	for _, m := range a.state.Members() {
		a.armMember(ctx, m.ID)
	}
}

// apply commits an already durable (or volatile-only) change to memory and
// moves the member actors' timers to the new deadlines.
func (a *groupActor) apply(ctx actor.Context, c *groupstate.Change) {
	if c.Trimmed > 0 {
		a.deps.Metrics.RetainedTrimmed(c.Trimmed)
	}
	var before []model.MemberState
	if c.Durable {
		before = make([]model.MemberState, len(c.Members))
		for i := range c.Members {
			if m, ok := a.state.Member(c.Members[i].ID); ok {
				before[i] = m.State
			}
		}
	}
	a.state.Apply(c)
	if c.Durable {
		a.syncLive()
		a.reportMembers()
		for i := range c.Members {
			a.reportTransition(before[i], &c.Members[i])
		}
	}
	for i := range c.Members {
		a.armMember(ctx, c.Members[i].ID)
	}
	for _, id := range c.Removed {
		if ref, ok := a.members[id]; ok {
			ctx.Stop(ref.pid)
			delete(a.members, id)
		}
		delete(a.progress, id)
		delete(a.inFlight, id)
	}
}

// memberRef is a member's actor and the deadline last sent to it (memberArm), as
// Unix nanoseconds (0 = none since it started or last fired): one small map
// entry per member, since a node keeps one per member.
type memberRef struct {
	pid     *actor.PID
	armedAt int64
}

// disarmed records that the member actor's timer is off (it fired, or the
// actor restarted), so that armMember sends the next deadline.
func (a *groupActor) disarmed(memberID string) {
	if ref, ok := a.members[memberID]; ok {
		ref.armedAt = 0
		a.members[memberID] = ref
	}
}

// armMember makes the member's actor fire at its next deadline, spawning
// the actor if needed and stopping it when the member has no deadline left
// (expired, removed).
func (a *groupActor) armMember(ctx actor.Context, memberID string) {
	deadline, ok := a.state.NextDeadline(memberID)
	if w, due := a.state.OverdueAt(memberID); ok && due && w.Before(deadline) {
		deadline = w // MarkOverdue then (onMemberDue)
	}
	ref, running := a.members[memberID]
	switch {
	case !ok && running:
		ctx.Stop(ref.pid)
		delete(a.members, memberID)
	case !ok:
	case running:
		at := deadline.UnixNano()
		if ref.armedAt != 0 && ref.armedAt <= at {
			// Its timer fires no later than needed (a heartbeat only moved the deadline
			// on): onMemberDue re-arms it then. One arm per lease, not per heartbeat.
			return
		}
		a.members[memberID] = memberRef{pid: ref.pid, armedAt: at}
		ctx.Send(ref.pid, &memberArm{Deadline: deadline})
	default:
		child, err := ctx.SpawnNamed(a.deps.memberProps, memberActorName(memberID, 0))
		for attempt := 1; err != nil && attempt < 100; attempt++ {
			// A child of that name is still stopping: take another name.
			child, err = ctx.SpawnNamed(a.deps.memberProps, memberActorName(memberID, attempt))
		}
		if err != nil {
			// Every name is taken (cannot happen in practice): the prune tick's
			// deadline evaluation (groupstate.Tick) still expires the member.
			a.deps.Logger.Error("cannot spawn a member actor", slog.String("group", a.key.String()), a.reqAttr(),
				slog.String("member", memberID), slog.Any("err", err))
			return
		}
		a.members[memberID] = memberRef{pid: child}
	}
}

// reportMembers publishes the member count per state (O(members); only after
// durable changes, never on a steady-state heartbeat).
func (a *groupActor) reportMembers() {
	counts := map[string]int{}
	groupstate.CountStates(a.state, counts)
	a.deps.Metrics.Members(a.key, counts)
}

// reportTransition logs and counts a member that just expired or was fenced,
// whichever message or timer caused it.
func (a *groupActor) reportTransition(was model.MemberState, m *model.Member) {
	if was == m.State {
		return
	}
	switch m.State {
	case model.StateExpired:
		a.deps.Metrics.MemberExpired()
		a.deps.Logger.Info("member lease expired; its shards are free for others",
			slog.String("group", a.key.String()), a.reqAttr(), slog.String("member", m.ID))
	case model.StateFenced:
		a.deps.Metrics.MemberFenced()
		a.deps.Logger.Warn("member fenced: stale epoch, a claim of a shard it was not given, or a revocation not finished within the rebalance timeout; its shards stay blocked until it rejoins owning nothing or its lease expires",
			slog.String("group", a.key.String()), a.reqAttr(), slog.String("member", m.ID), slog.Int64("epoch", m.Epoch))
	}
}
