package shardworker

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/internal/retry"
)

// Claiming: the owner of a shard takes over entries other consumers left
// pending on it — at start (a previous owner's unfinished work) and
// periodically (entries delivered to a stale owner after the takeover).

// claimPending takes over every entry pending in the group on this shard
// (minimum idle 0: only this member may read the shard now) and processes it.
// It reports whether the pass reached the end (XAUTOCLAIM's cursor came back
// to 0-0): every entry pending under another name was then taken.
func (w *Worker) claimPending() bool {
	start := "0-0"
	bo := retry.NewBackoff(100*time.Millisecond, 2*time.Second)
	for w.readCtx.Err() == nil {
		// The command itself is not cancelled: abandoning a reply would lose
		// track of entries Redis delivered to this consumer.
		w.inRead.Store(true)
		if w.readCtx.Err() != nil { // set, then check: see worker.watch
			w.inRead.Store(false)
			return false
		}
		msgs, next, err := w.xautoclaim(start)
		w.inRead.Store(false)
		if errors.Is(err, fence.ErrFenced) {
			w.fenced(err, w.h.Epoch.Load())
			return false
		}
		if errors.Is(err, errClaimNotOwned) {
			return false
		}
		if err != nil {
			if !w.recoverReadError(err, bo) {
				return false
			}
			continue
		}
		bo.Reset()
		if len(msgs) > 0 {
			counts := w.deliveryCounts(msgs)
			w.process(msgs, counts)
		}
		if next == "0-0" || next == "0" || next == "" {
			return true
		}
		start = next
	}
	return false
}

// xautoclaim claims up to BatchSize entries from start, through the fence
// script (fence.go): fence.ErrFenced means nothing was claimed.
func (w *Worker) xautoclaim(start string) ([]redis.XMessage, string, error) {
	if !w.token.Valid() {
		return nil, "", errClaimNotOwned
	}
	w.hookBeforeWrite("claim")
	cmd, err := fence.ClaimScript.Run(context.WithoutCancel(w.readCtx), w.h.Redis, []string{w.key, w.fence.Key},
		[]any{w.h.Member, w.fence.TokenArg(), w.h.Group, w.h.Member, 0, start, w.h.BatchSize},
		func(ctx context.Context, args ...any) redis.Cmder { return redis.NewXAutoClaimCmd(ctx, args...) })
	if err != nil {
		return nil, "", err
	}
	return cmd.(*redis.XAutoClaimCmd).Result()
}

// errClaimNotOwned: the in-process ownership check failed before a claim.
var errClaimNotOwned = errors.New("membersdk: shard no longer owned; not claiming")

// deliveryCounts asks XPENDING how often each claimed entry was delivered.
func (w *Worker) deliveryCounts(msgs []redis.XMessage) map[string]int64 {
	out := make(map[string]int64, len(msgs))
	rows, err := w.h.Redis.XPendingExt(context.WithoutCancel(w.readCtx), &redis.XPendingExtArgs{
		Stream: w.key, Group: w.h.Group,
		Start: msgs[0].ID, End: msgs[len(msgs)-1].ID, Count: int64(2 * len(msgs)),
		Consumer: w.h.Member,
	}).Result()
	if err != nil {
		w.h.Log.Warn("XPENDING after XAUTOCLAIM failed; assuming entries were delivered once before", "shard", w.shard, "error", err)
	}
	for _, r := range rows {
		out[r.ID] = r.RetryCount
	}
	for _, m := range msgs {
		if out[m.ID] < 1 {
			out[m.ID] = 2 // claimed: delivered at least once before, now again
		}
	}
	return out
}

// orphanSweepEvery is how often an owner looks for entries pending under
// another consumer on its shard.
const orphanSweepEvery = 2 * time.Second

// orphans reports whether entries of this shard are pending under another
// consumer. Only the owner reads a shard, so such entries are orphans: a
// previous owner that lost the shard while blocked in XREADGROUP (paused
// process, partition) can have had entries delivered to it after this worker
// took over and claimed what was pending. Nobody would ever process them, so
// the owner claims them back.
func (w *Worker) orphans() bool {
	sum, err := w.h.Redis.XPending(context.WithoutCancel(w.readCtx), w.key, w.h.Group).Result()
	if err != nil {
		return false // the next read reports the error
	}
	for name, n := range sum.Consumers {
		if name != w.h.Member && n > 0 {
			return true
		}
	}
	return false
}
