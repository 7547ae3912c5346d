package group

import (
	"log/slog"

	"github.com/redisstream/coordinator/actors/group/fencing"
	"github.com/redisstream/coordinator/actors/groupstate"
)

// FenceMetrics is implemented by a Deps.Metrics that counts shard fence
// writes (fencing.Metrics). It is optional, so that a Metrics without it
// still works.
type FenceMetrics = fencing.Metrics

// fenceSteps writes and syncs the actor's shard fences (its fences field),
// logging what failed.
type fenceSteps struct{ a *groupActor }

// fenceBook is this activation's shard fences (group/fencing), bound to the
// actor's store on first use.
func (f fenceSteps) fenceBook() *fencing.Book {
	a := f.a
	b := &a.fences
	if b.Ctx == nil {
		b.Provisioner, b.Key, b.Ctx, b.Metrics = a.deps.Provisioner, a.key, a.storeCtx, a.deps.Metrics
	}
	return b
}

// writeFences writes the fences c needs, before c is saved (fencing.Book.Write).
func (f fenceSteps) writeFences(c *groupstate.Change) error {
	a := f.a
	n, err := f.fenceBook().Write(a.state, c)
	if err != nil {
		a.deps.Logger.Warn("shard fence write failed; the decision is not stored and members are told to retry",
			slog.String("group", a.key.String()), a.reqAttr(), slog.Int("fences", n), slog.Any("err", err))
	}
	return err
}

// syncFences makes the fences agree with memory before the group answers
// (fencing.Book.Sync).
func (f fenceSteps) syncFences() error {
	a := f.a
	n, err := f.fenceBook().Sync(a.state, a.deps.Now(), a.servableFrom)
	if n > 0 {
		stopLog{a}.logStaleFences(n)
	}
	return err
}
