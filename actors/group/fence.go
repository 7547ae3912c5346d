package group

import (
	"log/slog"
	"slices"

	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard"
)

// Shard fences (docs/PROTOCOL.md "Shard fence", issue 13): before a durable
// change is saved, the fence of every shard whose holder it moves is written
// (groupstate.Change.FenceMoves: the rules decide which, and to whom) — owner =
// the new holder, or "" when nobody holds the shard after the change. Steady
// heartbeats move no holder and write nothing.

// writeFences writes the fences c needs, before c is saved. On error nothing
// of c is saved (the caller answers RETRY or retries its timers); the shards
// are remembered as possibly stale, since some writes may have landed.
func (a *groupActor) writeFences(c *groupstate.Change) error {
	updates := fenceUpdates(c)
	if len(updates) == 0 {
		return nil
	}
	err := a.setFences(updates)
	if err != nil {
		a.deps.Logger.Warn("shard fence write failed; the decision is not stored and members are told to retry",
			slog.String("group", a.key.String()), a.reqAttr(), slog.Int("fences", len(updates)), slog.Any("err", err))
		a.markFencesStale(updates)
	}
	return err
}

// fenceSaveFailed records that c's fences were written but c itself may not
// have been saved: those fences may name a holder memory does not have.
func (a *groupActor) fenceSaveFailed(c *groupstate.Change) {
	a.markFencesStale(fenceUpdates(c))
}

func (a *groupActor) markFencesStale(updates []persistence.FenceUpdate) {
	if a.fenceStale == nil {
		a.fenceStale = map[int]struct{}{}
	}
	for _, u := range updates {
		a.fenceStale[u.Shard] = struct{}{}
	}
}

// syncFences makes the fences agree with memory before the group answers:
// once after each activation it reads the fence of every shard (one round
// trip) and marks those that exist and name another member than the
// shard's holder (a node that crashed between a fence write and its group
// write) for repair; then it repairs. A fence that does not exist is left
// alone (groups from before fencing: members then run unfenced). On error the
// group answers RETRY and tries again on the next request.
func (a *groupActor) syncFences() error {
	if a.fencesUnchecked && a.deps.Now().Before(a.servableFrom) {
		// After a takeover the fenced activation may still be writing fences until it
		// stops answering (servableFrom): compare them once it has, before the first answer
		// (nothing is answered or written by this activation before servableFrom).
		return nil
	}
	if a.fencesUnchecked && a.state != nil {
		n := a.state.Meta().ShardCount
		shards := make([]int, n)
		for i := range shards {
			shards[i] = i
		}
		sctx, cancel := a.storeCtx()
		got, err := a.deps.Provisioner.GetFences(sctx, a.key.StreamPrefix, a.key.ConsumerGroup, shards)
		cancel()
		if err != nil {
			return err
		}
		var stale []persistence.FenceUpdate
		for s, f := range got {
			if id, _ := a.state.Holder(s); f.Token > 0 && f.Owner != id {
				stale = append(stale, persistence.FenceUpdate{Shard: s})
			}
		}
		if len(stale) > 0 {
			a.logStaleFences(len(stale))
		}
		a.markFencesStale(stale)
		a.fencesUnchecked = false
	}
	return a.repairFences()
}

// repairFences rewrites the fences that a failed write may have left out of
// step with memory (reloaded from the store), to memory's holders. Until it
// succeeds the group answers nothing from memory.
func (a *groupActor) repairFences() error {
	if len(a.fenceStale) == 0 || a.state == nil {
		return nil
	}
	updates := make([]persistence.FenceUpdate, 0, len(a.fenceStale))
	for s := range a.fenceStale {
		id, epoch, _ := a.state.HolderEpoch(s)
		updates = append(updates, persistence.FenceUpdate{Shard: s, Owner: id, Epoch: epoch})
	}
	slices.SortFunc(updates, func(x, y persistence.FenceUpdate) int { return x.Shard - y.Shard })
	if err := a.setFences(updates); err != nil {
		return err
	}
	a.fenceStale = nil
	return nil
}

// clearFences clears the fence of every shard that has a holder (group
// deletion): nobody may acknowledge on them any more. The tokens go on from
// where they were if the group is created again. It returns the updates, so
// that a deletion that then fails can mark them for repair.
func (a *groupActor) clearFences() ([]persistence.FenceUpdate, error) {
	var updates []persistence.FenceUpdate
	for s := 0; s < a.state.Meta().ShardCount; s++ {
		if _, ok := a.state.Holder(s); ok {
			updates = append(updates, persistence.FenceUpdate{Shard: s})
		}
	}
	err := a.setFences(updates)
	if err != nil {
		a.markFencesStale(updates)
	}
	return updates, err
}

func (a *groupActor) setFences(updates []persistence.FenceUpdate) error {
	if len(updates) == 0 {
		return nil
	}
	if a.state != nil {
		// On a resharded stream a fence this group creates (a new group, or a shard
		// index a migration created again) starts above every token an earlier
		// incarnation of the shard can have reached (reshard.FenceBase).
		if mv := a.state.Meta().MetadataVersion; mv > 1 {
			for i := range updates {
				updates[i].Base = reshard.FenceBase(mv)
			}
		}
	}
	sctx, cancel := a.storeCtx()
	defer cancel()
	err := a.deps.Provisioner.SetFences(sctx, a.key.StreamPrefix, a.key.ConsumerGroup, updates)
	if err == nil {
		a.countFenceWrites(updates)
	}
	return err
}

// FenceMetrics is implemented by a Deps.Metrics that counts shard fence
// writes (rsc_shard_fence_writes_total{op}). It is optional, so that a
// Metrics without it still works.
type FenceMetrics interface {
	// FenceWrites counts fence writes that landed: set named a new holder,
	// clear left the shard with none.
	FenceWrites(set, clear int)
}

// countFenceWrites reports a successful batch of fence writes: one per
// shard whose holder changed (a hand-off is a clear, then a set), the
// coordinator's extra Redis writes per ownership change.
func (a *groupActor) countFenceWrites(updates []persistence.FenceUpdate) {
	fm, ok := a.deps.Metrics.(FenceMetrics)
	if !ok {
		return
	}
	var set, clear int
	for _, u := range updates {
		if u.Owner == "" {
			clear++
		} else {
			set++
		}
	}
	fm.FenceWrites(set, clear)
}

// fenceUpdates is the fence writes c's moves call for (groupstate.FenceMove).
func fenceUpdates(c *groupstate.Change) []persistence.FenceUpdate {
	moves := c.FenceMoves()
	if len(moves) == 0 {
		return nil
	}
	updates := make([]persistence.FenceUpdate, len(moves))
	for i, m := range moves {
		updates[i] = persistence.FenceUpdate{Shard: m.Shard, Owner: m.Holder, Epoch: m.Epoch}
	}
	return updates
}
