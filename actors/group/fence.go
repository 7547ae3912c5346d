package group

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard"
)

// Shard fences (docs/PROTOCOL.md "Shard fence", issue 13): before a durable
// change is saved, the fence of every shard whose holder it moves is written
// (groupstate.Change.FenceMoves: the rules decide which, and to whom) — owner =
// the new holder, or "" when nobody holds the shard after the change. Steady
// heartbeats move no holder and write nothing.

// shardFences keeps one group activation's shard fences in step with its memory:
// it writes them and remembers the shards a failed write may have left out
// of step, until they are repaired. Used from the group actor only.
type shardFences struct {
	provisioner persistence.Provisioner
	key         persistence.GroupKey
	// ctx bounds one store call.
	ctx func() (context.Context, context.CancelFunc)
	// metrics counts fence writes when it implements groupdeps.FenceMetrics (may be nil).
	metrics any

	// stale: shards whose fence a failed write may have left out of step with
	// memory; repaired before the group answers again.
	stale map[int]struct{}
	// unchecked: activated since the fences were last compared with memory.
	unchecked bool
}

// activated marks the fences to be compared with memory before the group
// answers (sync).
func (b *shardFences) activated() { b.unchecked = true }

// write writes the fences c needs, before c is saved. On error nothing of c
// may be saved (the caller answers RETRY or retries its timers); the shards
// are remembered as possibly stale, since some writes may have landed. n is
// how many fences c needed.
func (b *shardFences) write(state *groupstate.Group, c *groupstate.Change) (n int, err error) {
	updates := fenceUpdatesOf(c)
	if len(updates) == 0 {
		return 0, nil
	}
	if err = b.set(state, updates); err != nil {
		b.markStale(updates)
	}
	return len(updates), err
}

// saveFailed records that c's fences were written but c itself may not have
// been saved: those fences may name a holder memory does not have.
func (b *shardFences) saveFailed(c *groupstate.Change) { b.markStale(fenceUpdatesOf(c)) }

// markStale remembers updates as possibly out of step with memory.
func (b *shardFences) markStale(updates []persistence.FenceUpdate) {
	if b.stale == nil {
		b.stale = map[int]struct{}{}
	}
	for _, u := range updates {
		b.stale[u.Shard] = struct{}{}
	}
}

// sync makes the fences agree with memory before the group answers: once
// after each activation it reads the fence of every shard (one round trip)
// and marks those that exist and name another member than the shard's holder
// (a node that crashed between a fence write and its group write) for
// repair; then it repairs. A fence that does not exist is left alone (groups
// from before fencing: members then run unfenced). stale is how many fences
// the comparison found out of step. On error the group answers RETRY and
// tries again on the next request.
//
// After a takeover the fenced activation may still be writing fences until it
// stops answering (servableFrom): they are compared once it has, before the
// first answer (nothing is answered or written by this activation before
// servableFrom).
func (b *shardFences) sync(state *groupstate.Group, now, servableFrom time.Time) (stale int, err error) {
	if b.unchecked && now.Before(servableFrom) {
		return 0, nil
	}
	if b.unchecked && state != nil {
		shards := make([]int, state.Meta().ShardCount)
		for i := range shards {
			shards[i] = i
		}
		sctx, cancel := b.ctx()
		got, err := b.provisioner.GetFences(sctx, b.key.StreamPrefix, b.key.ConsumerGroup, shards)
		cancel()
		if err != nil {
			return 0, err
		}
		var out []persistence.FenceUpdate
		for s, f := range got {
			if id, _ := state.Holder(s); f.Token > 0 && f.Owner != id {
				out = append(out, persistence.FenceUpdate{Shard: s})
			}
		}
		b.markStale(out)
		b.unchecked = false
		stale = len(out)
	}
	return stale, b.repair(state)
}

// repair rewrites the fences that a failed write may have left out of step
// with memory (reloaded from the store), to memory's holders. Until it
// succeeds the group answers nothing from memory.
func (b *shardFences) repair(state *groupstate.Group) error {
	if len(b.stale) == 0 || state == nil {
		return nil
	}
	updates := make([]persistence.FenceUpdate, 0, len(b.stale))
	for s := range b.stale {
		id, epoch, _ := state.HolderEpoch(s)
		updates = append(updates, persistence.FenceUpdate{Shard: s, Owner: id, Epoch: epoch})
	}
	slices.SortFunc(updates, func(x, y persistence.FenceUpdate) int { return x.Shard - y.Shard })
	if err := b.set(state, updates); err != nil {
		return err
	}
	b.stale = nil
	return nil
}

// clear clears the fence of every shard that has a holder (group deletion):
// nobody may acknowledge on them any more. The tokens go on from where they
// were if the group is created again. It returns the updates, so that a
// deletion that then fails can mark them for repair (markStale).
func (b *shardFences) clear(state *groupstate.Group) ([]persistence.FenceUpdate, error) {
	var updates []persistence.FenceUpdate
	for s := 0; s < state.Meta().ShardCount; s++ {
		if _, ok := state.Holder(s); ok {
			updates = append(updates, persistence.FenceUpdate{Shard: s})
		}
	}
	err := b.set(state, updates)
	if err != nil {
		b.markStale(updates)
	}
	return updates, err
}

func (b *shardFences) set(state *groupstate.Group, updates []persistence.FenceUpdate) error {
	if len(updates) == 0 {
		return nil
	}
	if state != nil {
		// On a resharded stream a fence this group creates (a new group, or a shard
		// index a migration created again) starts above every token an earlier
		// incarnation of the shard can have reached (reshard.FenceBase).
		if mv := state.Meta().MetadataVersion; mv > 1 {
			for i := range updates {
				updates[i].Base = reshard.FenceBase(mv)
			}
		}
	}
	sctx, cancel := b.ctx()
	defer cancel()
	err := b.provisioner.SetFences(sctx, b.key.StreamPrefix, b.key.ConsumerGroup, updates)
	if err == nil {
		b.count(updates)
	}
	return err
}

// count reports a successful batch of fence writes: one per shard whose
// holder changed (a hand-off is a clear, then a set), the coordinator's extra
// Redis writes per ownership change.
func (b *shardFences) count(updates []persistence.FenceUpdate) {
	fm, ok := b.metrics.(groupdeps.FenceMetrics)
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

// fenceUpdatesOf is the fence writes c's moves call for (groupstate.FenceMove).
func fenceUpdatesOf(c *groupstate.Change) []persistence.FenceUpdate {
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

// The actor's steps with its shard fences (its fences field): write before a save, sync
// before an answer, logging what failed.

// fenceBook is this activation's shard fences (shardFences), bound to the
// actor's store on first use.
func (a *groupActor) fenceBook() *shardFences {
	b := &a.fences
	if b.ctx == nil {
		b.provisioner, b.key, b.ctx, b.metrics = a.deps.Provisioner, a.key, a.storeCtx, a.deps.Metrics
	}
	return b
}

// writeFences writes the fences c needs, before c is saved (shardFences.write).
func (a *groupActor) writeFences(c *groupstate.Change) error {
	n, err := a.fenceBook().write(a.state, c)
	if err != nil {
		a.deps.Logger.Warn("shard fence write failed; the decision is not stored and members are told to retry",
			slog.String("group", a.key.String()), a.reqAttr(), slog.Int("fences", n), slog.Any("err", err))
	}
	return err
}

// syncFences makes the fences agree with memory before the group answers
// (shardFences.sync).
func (a *groupActor) syncFences() error {
	n, err := a.fenceBook().sync(a.state, a.deps.Now(), a.servableFrom)
	if n > 0 {
		a.logStaleFences(n)
	}
	return err
}
