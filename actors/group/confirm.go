package group

import (
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/persistence"
)

// confirmTick asks the group actor to confirm its activation with the store.
// loop identifies the chain of ticks: after a supervisor restart the new
// incarnation starts its own chain and ignores ticks of the old one.
type confirmTick struct{ loop uint64 }

// confirmLoops hands out chain identities.
var confirmLoops atomic.Uint64

// Ownership confirmation. A steady-state group writes nothing, so a stale
// activation (its node cut off from Redis while another node activated the
// group) would otherwise go on answering OK from memory. Each activation
// therefore reads its activation epoch back every confirmInterval, and
// answers heartbeats only while its last confirmation is younger than
// validity. validity is a sixth of the lease TTL: shorter than the members'
// self-fence margin (the SDK's is at least a fifth of the TTL, with slack
// for clock-rate differences), so a member
// talking to a stale activation stops reading before a new activation can
// hand its shards to anyone (a new activation gives every known member a full
// fresh lease first).
func (a *groupActor) validity() time.Duration {
	v := a.deps.Rules.LeaseTTL / 6
	if v < 30*time.Millisecond {
		v = 30 * time.Millisecond
	}
	return v
}

func (a *groupActor) confirmInterval() time.Duration { return a.validity() / 3 }

// confirmed reports whether this activation may answer from memory at now.
func (a *groupActor) confirmed(now time.Time) bool {
	return now.Sub(a.confirmedAt) <= a.validity()
}

func (a *groupActor) scheduleConfirm(ctx actor.Context) {
	if a.stopped {
		return
	}
	self, root := ctx.Self(), ctx.ActorSystem().Root
	if a.confirmLoop == 0 {
		a.confirmLoop = confirmLoops.Add(1)
	}
	tick := &confirmTick{loop: a.confirmLoop}
	time.AfterFunc(a.confirmInterval(), func() { root.Send(self, tick) })
}

// onConfirm checks the activation. Coming back after a gap (store outage),
// it reloads the group: every member gets a fresh lease, because members
// could not heartbeat successfully through no fault of their own.
func (a *groupActor) onConfirm(ctx actor.Context) {
	if a.stopped {
		return
	}
	defer a.scheduleConfirm(ctx)
	if a.state == nil {
		_ = a.ready(ctx)
		return
	}
	sctx, cancel := a.storeCtx()
	defer cancel()
	// The read proves the activation current at some instant after start, not when the answer
	// arrives: count validity from start, or a slow answer would stretch it past the members'
	// self-fence margin.
	start := a.deps.Now()
	err := a.deps.Store.CheckActivation(sctx, a.key, a.activation)
	now := a.deps.Now()
	switch {
	case err == nil:
		if !a.confirmed(now) {
			a.deps.Logger.Info("store reachable again; every member gets a fresh lease",
				slog.String("group", a.key.String()), slog.Duration("unconfirmedFor", now.Sub(a.confirmedAt)))
			a.reload(ctx)
		}
		a.confirmedAt = start
	case errors.Is(err, persistence.ErrFenced):
		a.stop(ctx, "fenced: a newer activation of this group exists")
	default:
		if a.confirmed(now) && !a.confirmed(now.Add(a.confirmInterval())) {
			a.deps.Logger.Warn("cannot confirm group ownership with the store; members are told to retry until it answers",
				slog.String("group", a.key.String()), slog.Any("err", err))
		}
	}
}
