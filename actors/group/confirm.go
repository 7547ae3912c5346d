package group

import (
	"errors"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// NodeConfirmed is sent by the host's node confirmer to every group actor of
// the node after each renewal of the node record (one store round trip for
// the whole node). Start is when that round started: the renewal proves that
// no takeover of this node's groups had been announced when the store ran it,
// so an activation that needs no check counts as confirmed from Start.
// Check: a takeover was announced (or the node record was re-created): the
// activation must read its epoch back before it counts the round.
//
// The group actor also uses this message as its clock tick for idle
// passivation and for keeping the live-group index in step.
type NodeConfirmed struct {
	Start time.Time
	Check bool
}

// StoreLost tells a group actor that its node found the store lost data:
// no shard may be granted before Until.
type StoreLost struct{ Until time.Time }

// Validity is how long after a confirmation an activation may answer from
// memory: a sixth of the lease TTL, shorter than the members' self-fence
// margin (the SDK's is at least a fifth of the TTL, with slack for
// clock-rate differences), so a member talking to a stale activation stops
// reading before a new activation can hand its shards to anyone. A new
// activation that fenced a live owner waits Validity after telling it (see
// takeover) before it answers.
func Validity(rules model.Config) time.Duration {
	v := rules.LeaseTTL / 6
	if v < 30*time.Millisecond {
		v = 30 * time.Millisecond
	}
	return v
}

// ConfirmInterval is how often the node renews its record: a third of Validity.
func ConfirmInterval(rules model.Config) time.Duration { return Validity(rules) / 3 }

func (a *groupActor) validity() time.Duration { return Validity(a.deps.Rules) }

// confirmed reports whether this activation may answer from memory at now.
func (a *groupActor) confirmed(now time.Time) bool {
	return !a.stopped && now.Sub(a.confirmedAt) < a.validity() && !now.Before(a.servableFrom)
}

// onNodeConfirmed counts a node round for this activation. Coming back after
// a gap (store outage), it reloads the group: every member gets a fresh
// lease, because members could not heartbeat successfully through no fault
// of their own.
func (a *groupActor) onNodeConfirmed(ctx actor.Context, msg *NodeConfirmed) {
	if a.stopped {
		return
	}
	if a.state == nil {
		a.retryActivation(ctx)
		return
	}
	if msg.Check || a.needsCheck {
		// A takeover was announced since the last round: this activation may be the one
		// taken over. Until one read says otherwise, no round counts (needsCheck stays set
		// if the read fails, so a later round without news cannot confirm it either).
		a.needsCheck = true
		sctx, cancel := a.storeCtx()
		err := a.deps.Store.CheckActivation(sctx, a.key, a.activation)
		cancel()
		switch {
		case errors.Is(err, persistence.ErrBehind):
			a.lost(ctx, "the group's activation record is gone or older than this activation: "+err.Error())
			return
		case errors.Is(err, persistence.ErrFenced):
			a.stop(ctx, "fenced: a newer activation of this group exists")
			return
		case err != nil:
			a.deps.Logger.Warn("cannot confirm group ownership with the store; members are told to retry until it answers",
				slog.String("group", a.key.String()), slog.Any("err", err))
			return
		}
		a.needsCheck = false
	}
	now := a.deps.Now()
	if now.Sub(a.confirmedAt) > a.validity() {
		a.deps.Logger.Info("store reachable again; every member gets a fresh lease",
			slog.String("group", a.key.String()), slog.Duration("unconfirmedFor", now.Sub(a.confirmedAt)))
		a.reload(ctx)
		if a.state == nil || a.stopped {
			return
		}
	}
	if msg.Start.After(a.confirmedAt) {
		a.confirmedAt = msg.Start
	}
	a.syncLive()
	a.checkIdle(ctx, now)
}

// onStoreLost holds grants of the state in memory; the next write (or check)
// finds the store behind and re-activates the group from what is left.
func (a *groupActor) onStoreLost(msg *StoreLost) {
	if a.state != nil {
		a.state.HoldGrantsUntil(msg.Until)
	}
}

// lost handles a store that is behind this activation: the node is told
// (node-wide hold, health, metric), memory is dropped and the group is
// activated again from what the store still has, with grants held.
func (a *groupActor) lost(ctx actor.Context, why string) {
	a.deps.Node.StateLost(a.key.String() + ": " + why)
	if a.state != nil {
		meta := a.state.Meta()
		a.carry = &meta
	}
	for id, ref := range a.members {
		ctx.Stop(ref.pid)
		delete(a.members, id)
	}
	a.state, a.liveMarked, a.needsCheck = nil, false, false
	a.progress = map[string][]protocol.ShardProgress{}
	a.inFlight = map[string]map[int]int{}
	_ = a.ready(ctx)
}

// retryActivation tries again to activate a group whose activation failed
// (store down, stream deleted). One that keeps failing for the idle time
// stops: it holds no member, and the next request activates it afresh.
func (a *groupActor) retryActivation(ctx actor.Context) {
	now := a.deps.Now()
	if a.ready(ctx) == nil {
		return
	}
	if a.idleSince.IsZero() {
		a.idleSince = now
	}
	if idle := a.deps.IdlePassivation; idle > 0 && now.Sub(a.idleSince) >= idle {
		a.release(ctx, "activation kept failing for "+now.Sub(a.idleSince).Round(time.Millisecond).String())
	}
}
