package group

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/persistence"
)

// The rejoin gate in the group actor (docs/RELIABILITY.md, "A node
// rejoining"; the rules: actors/node/gate.go, through
// groupdeps.Node.PlacedElsewhere). A grain that starts while the gate holds
// its group does not activate:
//
//   - if this node's own list places the group elsewhere, it answers RETRY
//     and stops: the caller drops its cached PID and looks the group up again
//     (by then its list may agree); a grain that stayed would keep receiving
//     the requests of callers that cached it;
//   - if it waits for a live holder to hand the group over (this node's list
//     places it here), it stays dormant: it answers every request RETRY and
//     asks the gate again at each one, activating in place once the gate lets
//     it (the holder released the group, or the settle window ran out).
//     Stopping instead would make every request spawn a grain that stops
//     again, and protoactor drops, unanswered, a request that reaches a
//     grain's mailbox just as it stops: its caller waits out its whole
//     timeout. A dormant grain nobody asks for gatedIdleAfter stops.

// gate is called when the grain started: it reports whether the gate holds
// the group (the grain is then dormant).
func gate(a *groupActor, ctx actor.Context) bool {
	why, elsewhere := a.deps.Node.PlacedElsewhere(a.key)
	if why == "" {
		return false
	}
	a.deps.Logger.Debug("not activating group here", slog.String("group", a.key.String()), slog.String("reason", why))
	a.gated = true
	if elsewhere {
		a.stopped = true
		ctx.Poison(ctx.Self())
		return true
	}
	ctx.SetReceiveTimeout(gatedIdleAfter(a))
	return true
}

// ungate is ready's first step: for a dormant grain, ask the gate again; nil
// when the grain may activate (it is then registered with the node), else the
// RETRY error.
func ungate(a *groupActor, ctx actor.Context) error {
	if !a.gated {
		return nil
	}
	if why, elsewhere := a.deps.Node.PlacedElsewhere(a.key); why != "" {
		if elsewhere && !a.stopped {
			a.stopped = true
			ctx.Poison(ctx.Self())
		}
		return fmt.Errorf("group %s is not activated on this node: %s: %w", a.key, why, persistence.ErrFenced)
	}
	a.gated = false
	ctx.SetReceiveTimeout(0)
	a.deps.Node.GroupStarted(a.key, ctx.Self())
	return nil
}

// gatedIdle stops a dormant grain that nobody asked for gatedIdleAfter.
func gatedIdle(a *groupActor, ctx actor.Context) {
	if a.gated && !a.stopped {
		a.stopped = true
		ctx.Poison(ctx.Self())
	}
}

// gatedIdleAfter is how long a dormant grain waits for a request: a few
// heartbeat intervals (members that keep asking keep it), at least 1 s.
func gatedIdleAfter(a *groupActor) time.Duration {
	return max(time.Second, 3*a.deps.Rules.HeartbeatInterval)
}
