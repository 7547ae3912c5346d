package groupstate

import (
	"math"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// The move cap (Config.MaxMovesPerRound, Config.MaxMovesFraction): when many members join or
// leave at once, revoke-before-assign leaves every shard that moves unread from the moment its
// old owner releases it until its new owner starts it. Without a cap, 50 members joining a
// 1,024-shard group revoke almost every shard at once; with one, at most that many are on the
// move and the rest of the group keeps reading.
//
// Design: the target stays the assignor's ideal (assign.Sorted, unchanged), and the cap acts
// where a revocation starts (settle, step 3, reconcile.go): a member may start revoking only as many of its
// Assigned − Target shards as the group's budget has left (cap − moves in flight, see
// revokeBudget below); the rest stay Assigned, still read by their owner, and are revoked on a
// later heartbeat once earlier revocations finished. Against the alternative, a capped
// intermediate target computed by the assignor:
//
//   - stickiness: the target is exactly what it is without the cap, so no shard moves twice
//     (an intermediate target would move shards toward a stepping stone, then on);
//   - determinism: the assignor's output depends on membership only, not on how far the moves
//     have got, and the revoked shards are the lowest of Assigned − Target;
//   - convergence: the target never changes while moves proceed, so there is nothing to
//     oscillate; every revocation ends (released, or its owner fenced at the rebalance timeout
//     and later expired), which returns its budget, so each round makes progress until
//     Assigned = Target everywhere;
//   - liveness: the cap limits only voluntary revocations of live members. Free shards (owner
//     expired, left, fenced and expired, never owned) are granted by grant as before, without
//     any budget: they count as in flight until granted, so they delay voluntary revocations,
//     never themselves. A LEAVING member's drain, and an away static member's (a temporary
//     leave, static.go), is neither limited nor counted: the member chose to stop.
//
// An operator's pause of rebalancing (model.Pause, pause.go) is this cap at 0:
// settle gets budget 0, so no voluntary revocation starts, while grant still hands out every
// free shard; resuming returns the budget.
//
// A member held back keeps its member epoch (settle advances it only once Assigned ⊆ Target),
// so "member epoch = assignment epoch" still means "reconciled"; the group is STABLE only when
// every held-back revocation has run.

// revokeBudget returns how many shards member id may start revoking now: -1 = any (no cap),
// else the cap minus the moves in flight: the shards other live members are revoking (as of the
// txn), the shards id itself was revoking before this heartbeat (it may be releasing them right
// now), and the shards nobody holds (released and not yet started by their new owner, or freed
// by an expiry). A move counts until its new owner has it, so no more than the cap shards are
// ever unread because of moves. While rebalancing is paused (pause.go) the budget is 0. Free shards still go to their new owners at once (grant takes
// no budget); they only make voluntary revocations wait. O(members + shards), only with a cap.
func (t *txn) revokeBudget(id string) int {
	if t.meta.Paused.IsSet() {
		return 0 // rebalancing paused by an operator: a cap with nothing left (pause.go)
	}
	limit := moveLimit(t.g.cfg, t.meta.ShardCount)
	if limit == 0 {
		return -1
	}
	inFlight := 0
	for mid, old := range t.g.members {
		if mid == id {
			if capped(old) {
				inFlight += len(old.Revoking)
			}
			continue
		}
		if m := t.get(mid); m != nil && capped(m) {
			inFlight += len(m.Revoking)
		}
	}
	for s := range min(t.meta.ShardCount, len(t.g.holder)) {
		if t.g.holder[s] == "" {
			inFlight++
		}
	}
	if inFlight >= limit {
		return 0
	}
	return limit - inFlight
}

// moveLimit returns the most voluntary revocations the group may have in flight (0 = no cap).
func moveLimit(cfg model.Config, shardCount int) int {
	c := 0
	if cfg.MaxMovesPerRound > 0 {
		c = cfg.MaxMovesPerRound
	}
	if f := cfg.MaxMovesFraction; f > 0 && shardCount > 0 {
		n := max(1, int(math.Ceil(f*float64(shardCount))))
		if c == 0 || n < c {
			c = n
		}
	}
	return c
}

// capped reports whether m's revocations are voluntary moves the cap limits: a live member
// that is not away on a temporary leave (whose drain it chose itself).
func capped(m *model.Member) bool { return m.State.InTarget() && !m.Away() }
