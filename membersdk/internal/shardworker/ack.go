package shardworker

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
)

// ackBatch acknowledges entries of this shard whose handlers succeeded
// (ids, read at member epoch epoch): one ownership check, then one XACK for
// all of them, while the token is held, so that no id of the batch is
// acknowledged after the self-fence deadline, a revoke past its drain, or a
// fence. It reports whether the XACK was applied. When the check fails every
// entry is reported ACK_REFUSED and stays pending for the next owner; when
// the XACK fails (its outcome unknown) the entries are remembered for
// confirmAcks.
func (w *Worker) ackBatch(ids []string, epoch int64, onWorker bool) bool {
	ran, err := w.writeOwned("ack", ids, epoch, func() error { return w.xack(context.Background(), onWorker, ids...) })
	switch {
	case !ran:
		w.refuseEach(ids, epoch, nil)
		return false
	case errors.Is(err, fence.ErrFenced):
		w.fenced(err, epoch, ids...)
		return false
	case err != nil:
		w.h.Log.Warn("XACK failed; it will be settled when Redis answers again", "shard", w.shard, "ids", len(ids), "first", ids[0], "error", err)
		for _, id := range ids {
			w.h.Unconfirmed.Add(w.shard, id, epoch)
		}
		w.reclaim.Store(true)
		return false
	}
	return true
}

// writeOwned runs write, which acknowledges ids (read at member epoch
// epoch), under the ownership token (Ownership.WithOwnership; op names it
// for BeforeWrite), and reports each id ACKED once it succeeded. ran is
// false when the token was no longer valid: nothing was sent. The events
// are reported under the token, so they precede the shard's release, with
// the time the write was sent (it took effect between then and its reply):
// a pause while waiting for the reply must not look like a late
// acknowledgement.
func (w *Worker) writeOwned(op string, ids []string, epoch int64, write func() error) (ran bool, err error) {
	return w.token.WithOwnership(func() error {
		w.hookBeforeWrite(op)
		sent := w.h.Now()
		if err := write(); err != nil {
			return err
		}
		if w.h.Events {
			for _, id := range ids {
				w.h.Emit(Event{Type: EventAcked, Shard: w.shard, EntryID: id, Epoch: epoch, Time: sent})
			}
		}
		return nil
	})
}

// refuseEach reports each id ACK_REFUSED (err: why, if known).
func (w *Worker) refuseEach(ids []string, epoch int64, err error) {
	for _, id := range ids {
		w.h.Emit(Event{Type: EventAckRefused, Shard: w.shard, EntryID: id, Epoch: epoch, Err: err})
	}
}

// xack is the one place this worker sends XACK (batched handler results,
// dead letters, settling unconfirmed acknowledgements). Callers hold the
// ownership token (withOwnership). Every XACK is checked against the shard's
// fence by Redis: a refusal is fence.ErrFenced and nothing was acknowledged.
//
// onWorker: the caller is the worker goroutine, between two reads, so the
// XACK goes over the reader's own connection (read and acknowledgement then
// alternate on one socket, as in a hand-written loop) as a WATCH/MULTI/EXEC
// transaction (FencedAcker: no Lua, about the cost of a plain XACK). Other
// callers, and readers without a connection of their own (Cluster), use the
// fence script (fencedXAck) through the pool.
func (w *Worker) xack(ctx context.Context, onWorker bool, ids ...string) error {
	if onWorker {
		if a := w.reader.Acker(w.fence.Token); a != nil {
			_, err := a.Ack(ctx, ids...)
			if !errors.Is(err, fence.ErrTxRefused) {
				return err
			}
			// Nothing was sent that acknowledges: use the script from now on.
			w.reader.RefuseTx()
			w.h.Log.Warn("Redis refused MULTI/WATCH; acknowledging through the fence script instead", "shard", w.shard, "error", err)
		}
	}
	_, err := fence.ScriptXAck(ctx, w.h.Redis, w.key, w.h.Group, w.h.Member, w.fence.Token, ids...)
	return err
}

func newIntCmd(ctx context.Context, args ...any) redis.Cmder { return redis.NewIntCmd(ctx, args...) }
