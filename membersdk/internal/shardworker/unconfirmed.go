package shardworker

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
)

// confirmAcks settles the entries of this shard whose XACK outcome is
// unknown: an entry no longer pending was acknowledged (ACKED is reported
// late); an entry still pending is acknowledged now, under this worker's
// ownership. Entries that cannot be settled (Redis still failing) are kept.
func (w *Worker) confirmAcks() {
	ids := w.h.Unconfirmed.Take(w.shard)
	for id, epoch := range ids {
		if !w.token.Valid() {
			w.h.Unconfirmed.Add(w.shard, id, epoch)
			continue
		}
		ctx := context.WithoutCancel(w.readCtx)
		rows, err := w.h.Redis.XPendingExt(ctx, &redis.XPendingExtArgs{
			Stream: w.key, Group: w.h.Group, Start: id, End: id, Count: 1,
		}).Result()
		if err != nil {
			w.h.Unconfirmed.Add(w.shard, id, epoch)
			continue
		}
		if len(rows) == 0 {
			w.h.Log.Info("an XACK whose reply was lost had been applied", "shard", w.shard, "id", id)
			w.h.Emit(Event{Type: EventAcked, Shard: w.shard, EntryID: id, Epoch: epoch})
			continue
		}
		ran, err := w.token.WithOwnership(func() error {
			if err := w.xack(ctx, false, id); err != nil {
				return err
			}
			w.h.Emit(Event{Type: EventAcked, Shard: w.shard, EntryID: id, Epoch: epoch})
			return nil
		})
		if errors.Is(err, fence.ErrFenced) {
			w.fenced(err, epoch, id)
			continue
		}
		if !ran || err != nil {
			w.h.Unconfirmed.Add(w.shard, id, epoch)
			continue
		}
		w.h.Log.Info("acknowledged an entry whose earlier XACK failed (its handler had succeeded)", "shard", w.shard, "id", id)
	}
}
