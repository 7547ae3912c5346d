package membersdk

import (
	"context"
	"errors"
	"sync"

	"github.com/redis/go-redis/v9"
)

// unconfirmedAcks remembers entries whose handler succeeded but whose XACK
// failed (typically Redis going away mid-command): Redis may or may not have
// applied it. When the member owns the shard again, confirmAcks settles each
// one instead of running its handler a second time.
type unconfirmedAcks struct {
	mu sync.Mutex
	m  map[int]map[string]int64 // shard → entry id → epoch it was read at
}

func (u *unconfirmedAcks) add(shard int, id string, epoch int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.m == nil {
		u.m = map[int]map[string]int64{}
	}
	if u.m[shard] == nil {
		u.m[shard] = map[string]int64{}
	}
	u.m[shard][id] = epoch
}

func (u *unconfirmedAcks) take(shard int) map[string]int64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	ids := u.m[shard]
	delete(u.m, shard)
	return ids
}

// confirmAcks settles the entries of this shard whose XACK outcome is
// unknown: an entry no longer pending was acknowledged (ACKED is reported
// late); an entry still pending is acknowledged now, under this worker's
// ownership. Entries that cannot be settled (Redis still failing) are kept.
func (w *worker) confirmAcks() {
	ids := w.c.unconfirmed.take(w.shard)
	for id, epoch := range ids {
		if !w.token.valid() {
			w.c.unconfirmed.add(w.shard, id, epoch)
			continue
		}
		ctx := context.WithoutCancel(w.readCtx)
		rows, err := w.c.cfg.Redis.XPendingExt(ctx, &redis.XPendingExtArgs{
			Stream: w.key, Group: w.c.cfg.ConsumerGroup, Start: id, End: id, Count: 1,
		}).Result()
		if err != nil {
			w.c.unconfirmed.add(w.shard, id, epoch)
			continue
		}
		if len(rows) == 0 {
			w.c.log.Info("an XACK whose reply was lost had been applied", "shard", w.shard, "id", id)
			w.c.emit(Event{Type: EventAcked, Shard: w.shard, EntryID: id, Epoch: epoch})
			continue
		}
		ran, err := w.token.withOwnership(func() error {
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
			w.c.unconfirmed.add(w.shard, id, epoch)
			continue
		}
		w.c.log.Info("acknowledged an entry whose earlier XACK failed (its handler had succeeded)", "shard", w.shard, "id", id)
	}
}
