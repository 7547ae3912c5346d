package group

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/groupstate"
)

// applyNudging applies an already durable (or volatile-only) change like apply and then
// nudges the mailbox members the rules name for it (groupstate.Nudges, decided on the state
// before the change): a member whose assignment can grow is told to heartbeat now instead of
// at its interval. except is the member whose heartbeat made the change ("" for timers and
// admin changes). The nudges go out after the change is applied, so a nudged member's
// heartbeat is evaluated against it; the Nudger does not block (groupdeps.Nudger).
func applyNudging(a *groupActor, ctx actor.Context, c *groupstate.Change, except string) {
	if !c.Durable { // the steady heartbeat: nothing moved, nobody to nudge
		a.apply(ctx, c)
		return
	}
	nudges := groupstate.Nudges(a.state, c, except, a.deps.Now())
	a.apply(ctx, c)
	for _, n := range nudges {
		a.deps.Nudger.Nudge(a.key.StreamPrefix, a.key.ConsumerGroup, n.MemberID, n.Principal)
	}
}
