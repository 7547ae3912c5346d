package membersdk

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
)

// confirmAcks settles the entries of this shard whose XACK outcome is
// unknown: an entry no longer pending was acknowledged (ACKED is reported
// late); an entry still pending is acknowledged now, under this worker's
// ownership. Entries that cannot be settled (Redis still failing) are kept.
func (w *worker) confirmAcks() {
	ids := w.c.unconfirmed.Take(w.shard)
	for id, epoch := range ids {
		if !w.token.Valid() {
			w.c.unconfirmed.Add(w.shard, id, epoch)
			continue
		}
		ctx := context.WithoutCancel(w.readCtx)
		rows, err := w.c.cfg.Redis.XPendingExt(ctx, &redis.XPendingExtArgs{
			Stream: w.key, Group: w.c.cfg.ConsumerGroup, Start: id, End: id, Count: 1,
		}).Result()
		if err != nil {
			w.c.unconfirmed.Add(w.shard, id, epoch)
			continue
		}
		if len(rows) == 0 {
			w.c.log.Info("an XACK whose reply was lost had been applied", "shard", w.shard, "id", id)
			w.c.emit(Event{Type: EventAcked, Shard: w.shard, EntryID: id, Epoch: epoch})
			continue
		}
		ran, err := w.token.WithOwnership(func() error {
			if err := w.xack(ctx, false, id); err != nil {
				return err
			}
			w.c.emit(Event{Type: EventAcked, Shard: w.shard, EntryID: id, Epoch: epoch})
			return nil
		})
		if errors.Is(err, ErrFenced) {
			w.fenced(err, epoch, id)
			continue
		}
		if !ran || err != nil {
			w.c.unconfirmed.Add(w.shard, id, epoch)
			continue
		}
		w.c.log.Info("acknowledged an entry whose earlier XACK failed (its handler had succeeded)", "shard", w.shard, "id", id)
	}
}
