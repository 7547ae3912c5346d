package shardworker

import (
	"context"
	"errors"
	"fmt"

	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// txEntry is an entry whose handler succeeded, with the writes it queued.
type txEntry struct {
	id   string
	ops  []fence.Op
	size int // bytes of keys and arguments (fence.Writes.Bytes)
}

// errNotHeld: the worker no longer holds the shard (revoked past its drain,
// self-fenced, stopped); a commit is not even sent.
var errNotHeld = fmt.Errorf("%w: this member no longer holds the shard (revoked or self-fenced); nothing was written", fence.ErrFenced)

// newWrites opens the transaction of one delivery of msg (Host.Tx). Its
// CommitNow commits at once, under the ownership token, and closes it;
// committed reports whether that succeeded.
func (w *Worker) newWrites(msg *Message, committed *bool) {
	wr := fence.NewWrites(w.key, w.h.Cluster, w.h.TxLimits)
	id, epoch := msg.ID, msg.Epoch
	wr.CommitNow = func(ctx context.Context) error {
		ops, err := wr.Close("the transaction was committed")
		if err != nil {
			return err
		}
		if err := w.commitTx(ctx, []txEntry{{id: id, ops: ops}}, epoch); err != nil {
			return err
		}
		*committed = true
		return nil
	}
	msg.Writes = wr
}

// commitTx commits the entries' writes with their XACK in one step through
// the fence (fence.Commit), under the ownership token, as ackBatch
// acknowledges. ErrFenced: nothing written, the entries stay pending for the
// next owner. ErrTxRejected: nothing written; a batch is tried again entry
// by entry, and an entry rejected on its own stays pending, to be delivered
// again (and dead-lettered after MaxDeliveries). Another error: the outcome
// is unknown but all or nothing; the worker reads its pending entries again,
// so the entries are delivered again exactly when nothing landed.
func (w *Worker) commitTx(ctx context.Context, entries []txEntry, epoch int64) error {
	ids := make([]string, len(entries))
	var ops []fence.Op
	for i, e := range entries {
		ids[i] = e.id
		ops = append(ops, e.ops...)
	}
	ran, err := w.writeOwned("commit", ids, epoch, func() error {
		_, err := fence.Commit(ctx, w.h.Redis, w.key, w.h.Group, w.h.Member, w.fence.Token, ids, ops)
		return err
	})
	switch {
	case !ran:
		w.refuseEach(ids, epoch, errNotHeld)
		return errNotHeld
	case errors.Is(err, fence.ErrFenced):
		w.fenced(err, epoch, ids...)
		return err
	case errors.Is(err, fence.ErrTxRejected):
		if len(entries) > 1 {
			var first error
			for _, e := range entries {
				if err := w.commitTx(ctx, []txEntry{e}, epoch); err != nil && first == nil {
					first = err
				}
			}
			return first
		}
		w.h.Log.Error("Redis rejected a transaction: nothing was written and the entry stays pending; it is delivered again and dead-lettered after MaxDeliveries unless the data changes",
			"shard", w.shard, "id", ids[0], "error", err)
		w.refuseEach(ids, epoch, err)
		w.reclaim.Store(true)
		return err
	case err != nil:
		w.h.Log.Warn("transaction commit failed, outcome unknown (all or nothing): entries still pending are delivered again",
			"shard", w.shard, "ids", len(ids), "first", ids[0], "error", err)
		w.refuseEach(ids, epoch, err)
		w.reclaim.Store(true)
		return err
	}
	return nil
}

// flushTx commits the queued transactions of the batch: in chunks within
// the transaction bounds, each one round trip.
func (b *batch) flushTx() {
	b.lock()
	txs := b.txs
	b.txs = nil
	b.unlock()
	if len(txs) == 0 {
		return
	}
	lim := b.w.h.TxLimits
	for start := 0; start < len(txs); {
		end, n, size := start, 0, 0
		for end < len(txs) {
			en, es := len(txs[end].ops), txs[end].size
			if end > start && ((lim.MaxWrites > 0 && n+en > lim.MaxWrites) || (lim.MaxBytes > 0 && size+es > lim.MaxBytes)) {
				break
			}
			n, size, end = n+en, size+es, end+1
		}
		chunk := txs[start:end]
		err := b.w.commitTx(context.Background(), chunk, b.epoch)
		b.w.inFlight.Add(-int64(len(chunk)))
		if err != nil {
			b.w.noteDone(len(chunk), "")
		} else {
			last := chunk[0].id
			for _, e := range chunk[1:] {
				if protocol.StreamIDLess(last, e.id) {
					last = e.id
				}
			}
			b.w.noteDone(len(chunk), last)
		}
		start = end
	}
}
