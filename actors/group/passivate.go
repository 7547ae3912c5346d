package group

import (
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/groupstate"
)

// Idle groups cost nothing: a group with no member in the target or holding
// a shard for Deps.IdlePassivation gives its activation up (owner cleared in
// the store, so the next activation need not wait for it) and stops with its
// member actors. Its members are all EXPIRED or FENCED-without-shards or
// gone, so no lease is cut short: a later activation restores the same
// records and epochs.
//
// The live-group index (persistence.Nodes.MarkLive) lists groups that do
// have such members, so that a periodic sweep can activate the ones no node
// holds and expire members that died meanwhile. The index is a superset:
// a group is marked before a write can make it occupied, and unmarked only
// after it is durably empty, by its current activation (an older one cannot
// unmark a newer one's entry).

// occupying reports whether a change brings in a member that occupies the group.
func occupying(c *groupstate.Change) bool {
	for i := range c.Members {
		if c.Members[i].Occupies() {
			return true
		}
	}
	return false
}

// Passivation keeps the live-group index in step and gives an idle group's activation up
// (release).

// markBefore marks the group live before a durable write that may make it occupied.
func (a *groupActor) markBefore(c *groupstate.Change) {
	if a.liveMarked || !occupying(c) {
		return
	}
	sctx, cancel := a.storeCtx()
	defer cancel()
	if err := a.deps.Store.MarkLive(sctx, a.key, a.activation); err == nil {
		a.liveMarked = true
	}
	// On failure the write most likely fails too; syncLive retries every round.
}

// syncLive brings the index in step with memory, and tracks idleness.
func (a *groupActor) syncLive() {
	if a.state == nil || a.stopped {
		return
	}
	occupied := a.state.Occupied() > 0
	if occupied {
		a.idleSince = time.Time{}
	} else if a.idleSince.IsZero() {
		a.idleSince = a.deps.Now()
	}
	if occupied == a.liveMarked {
		return
	}
	sctx, cancel := a.storeCtx()
	defer cancel()
	if occupied {
		if a.deps.Store.MarkLive(sctx, a.key, a.activation) == nil {
			a.liveMarked = true
		}
		return
	}
	if a.deps.Store.UnmarkLive(sctx, a.key, a.activation) == nil {
		a.liveMarked = false
	}
}

// checkIdle passivates the group once it has been idle long enough.
func (a *groupActor) checkIdle(ctx actor.Context, now time.Time) {
	idle := a.deps.IdlePassivation
	if idle <= 0 || a.state == nil || a.idleSince.IsZero() || now.Sub(a.idleSince) < idle || a.liveMarked {
		return
	}
	a.passivate(ctx, now.Sub(a.idleSince))
}

// passivate stops answering first (queued requests get RETRY and the host
// activates the group again), then releases the activation and stops.
func (a *groupActor) passivate(ctx actor.Context, idleFor time.Duration) {
	a.release(ctx, "no live member for "+idleFor.Round(time.Millisecond).String())
	a.deps.Metrics.Passivated()
}

// release stops answering, gives the activation up in the store and stops
// the actor and its member actors. Members keep their leases: the same write
// hands their timers over to the next activation (handover.go); if it is
// lost, the next activation gives fresh leases.
func (a *groupActor) release(ctx actor.Context, why string) {
	handover := a.handover(a.deps.Now())
	a.stopped = true
	sctx, cancel := a.storeCtx()
	err := a.deps.Store.ReleaseActivation(sctx, a.key, a.activation, handover)
	cancel()
	if err != nil {
		// Harmless: the next activation treats this node as a previous owner and waits.
		a.deps.Logger.Debug("could not release the group's activation", slog.String("group", a.key.String()), slog.Any("err", err))
	}
	a.deps.Logger.Info("group activation released", slog.String("group", a.key.String()),
		slog.Int64("activation", a.activation), slog.String("reason", why), slog.Bool("leasesHandedOver", handover != nil))
	a.halt(ctx)
}
