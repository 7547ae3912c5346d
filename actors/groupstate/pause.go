package groupstate

import (
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Pause and resume of rebalancing (model.Pause, an operator's freeze). While the group's
// Meta.Paused is set, revokeBudget is 0 for every member, exactly like a move cap with no budget
// left (movecap.go): no live member starts a voluntary revocation, so no
// shard a live member holds moves. Everything that is not a voluntary move goes on:
//
//   - joiners are admitted, confirmed and heartbeat as usual; the target is recomputed as
//     always, so a joiner's target may name shards live members hold: it waits for them
//     (Pending) until the group is resumed;
//   - free shards (an expired or fenced-and-expired member's, a leaver's, never assigned ones,
//     shards a reshard added) are granted to their target owner at once: liveness first;
//   - a revocation already started before the pause runs to its end; a LEAVING member's drain
//     and a static member's temporary leave proceed (the member chose to stop);
//   - fencing and expiry are unchanged.
//
// Resuming clears the pause; each member's next heartbeat starts the revocations its target
// asks for (within a move cap, if one is set): a normal rebalance. The pause is durable group
// state (it is part of Meta): it survives a restart and a failover.

// SetPaused evaluates an operator's pause (paused) or resume (!paused) of the group's
// rebalancing at now; by and reason are kept with a pause (a resume's are only logged and
// audited by the shell). Pausing a paused group keeps the first pause (its since, who and why:
// the alert on long pauses measures from it) and resuming an active group changes nothing:
// both return nil. Pure: the caller persists the Change, then applies it.
func SetPaused(g *Group, paused bool, by, reason string, now time.Time) *Change {
	if paused == g.meta.Paused.IsSet() {
		return nil
	}
	t := newTxn(g, now)
	t.meta.Paused = model.Pause{}
	if paused {
		t.meta.Paused = model.Pause{RequestedBy: by, Reason: reason, Since: now}
		if now.IsZero() {
			t.meta.Paused.Since = time.Unix(0, 1).UTC() // a zero now must still read as paused
		}
	}
	t.metaDirty = true
	return t.change()
}
