package groupstate

import "github.com/redisstream/coordinator/actors/groupstate/reconcile"

// The move cap's rules and design: groupstate/reconcile (movecap.go).

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
	limit := reconcile.Limit(t.g.cfg, t.meta.ShardCount)
	if limit == 0 {
		return -1
	}
	inFlight := 0
	for mid, old := range t.g.members {
		if mid == id {
			if reconcile.Capped(old) {
				inFlight += len(old.Revoking)
			}
			continue
		}
		if m := t.get(mid); m != nil && reconcile.Capped(m) {
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
