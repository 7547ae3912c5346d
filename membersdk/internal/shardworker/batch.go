package shardworker

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/retry"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// batch is one read's entries on their way through the handlers. Handlers
// run in stream order on PerShardConcurrency lanes (one lane: one entry at a
// time, in order); the entries whose handler succeeded are acknowledged
// together by flush — one ownership check and one XACK for the batch —
// when the batch is done, and earlier when an entry is about to wait for a
// retry or be dead-lettered, so that finished work is not held up behind it,
// and before the next handler starts once acknowledgements have waited
// MaxAckDelay (slow handlers: the XACK round trip is small next to them, and
// a fence in the middle of a slow batch should not redeliver work already
// done).
type batch struct {
	w      *Worker
	msgs   []redis.XMessage
	counts map[string]int64 // delivery counts of claimed entries; nil: first delivery
	epoch  int64
	lanes  int
	// wall0 (from the consumer's clock) and mono0 (monotonic) are read once
	// per batch; an entry's time is wall0 plus the monotonic time elapsed,
	// one cheap clock read instead of a full time.Now (which was half of the
	// SDK's own per-entry CPU).
	wall0, mono0 time.Time
	next         atomic.Int64 // index of the next entry to start (lanes > 1)

	mu       sync.Mutex // guards acks and queuedAt when lanes > 1
	acks     []string   // ids that succeeded, not yet acknowledged (stream order when lanes is 1)
	txs      []txEntry  // with Host.Tx: entries that succeeded and their writes, not yet committed
	queuedAt time.Time  // when acks or txs became non-empty
}

// MaxAckDelay bounds how long a finished entry waits for the batch's XACK
// while further handlers of the batch start (not while one runs).
const MaxAckDelay = time.Millisecond

// process hands the entries to handlers, on this goroutine (lanes > 1: on
// lanes goroutines), and returns when they are all finished and the
// successful ones acknowledged. Once work is abandoned (kill, drain timeout)
// no further entry starts; a handler still running finishes on its own (the
// worker's exit is reported by watch meanwhile) and its acknowledgement is
// refused by the sealed token.
func (w *Worker) process(msgs []redis.XMessage, counts map[string]int64) {
	if len(msgs) == 0 {
		return
	}
	w.noteRead(msgs)
	w.inFlight.Add(int64(len(msgs)))
	b := &batch{w: w, msgs: msgs, counts: counts, epoch: w.h.Epoch.Load(), acks: make([]string, 0, len(msgs))}
	b.lanes = min(w.h.PerShardConcurrency, len(msgs))
	b.wall0, b.mono0 = w.h.Now(), time.Now()
	b.run()
}

// run drives the batch on this goroutine (lanes 1) or on lanes goroutines,
// and flushes the acknowledgements at the end.
func (b *batch) run() {
	if b.lanes <= 1 {
		var slot laneSlot
		for i := range b.msgs {
			if !b.start(i, &slot) {
				b.abandon(len(b.msgs) - i)
				break
			}
		}
		slot.release(b.w.h)
	} else {
		var wg sync.WaitGroup
		for range b.lanes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b.lane()
			}()
		}
		wg.Wait()
	}
	b.flush(true)
}

// lane takes the next entry until none is left; once work is abandoned it
// gives up the rest.
func (b *batch) lane() {
	var slot laneSlot
	defer slot.release(b.w.h)
	for {
		i := int(b.next.Add(1) - 1)
		if i >= len(b.msgs) {
			return
		}
		if !b.start(i, &slot) {
			b.abandon(1)
		}
	}
}

// laneSlot is a lane's hold on one of the member's Concurrency slots. A lane
// keeps its slot from one entry to the next while some slot is free (then
// nobody can be waiting for one), and gives it back after each entry when
// all are taken, so that other shards get their turn.
type laneSlot struct{ held bool }

// acquire takes a slot unless one is held; false if work was abandoned
// while waiting. When no slot is free, b's finished entries are
// acknowledged first rather than held while waiting.
func (s *laneSlot) acquire(h *Host, b *batch) bool {
	if s.held {
		return true
	}
	select {
	case h.Sem <- struct{}{}: // a free slot: no wait
	default:
		b.flush(b.lanes == 1)
		select {
		case h.Sem <- struct{}{}:
		case <-b.w.workCtx.Done():
			return false
		}
	}
	h.Running.Add(1)
	s.held = true
	return true
}

// yield gives the slot back if every slot is taken (someone may wait).
func (s *laneSlot) yield(h *Host) {
	if s.held && len(h.Sem) == cap(h.Sem) {
		s.release(h)
	}
}

func (s *laneSlot) release(h *Host) {
	if s.held {
		s.held = false
		h.Running.Add(-1)
		<-h.Sem
	}
}

// start runs entry i if the worker may still work, in one of the member's
// Concurrency slots; false means it was not started.
func (b *batch) start(i int, slot *laneSlot) bool {
	w := b.w
	now := b.wall0.Add(time.Since(b.mono0)) // ownership and ack delay share it
	if w.workCtx.Err() != nil || !w.token.ValidAt(now) {
		return false
	}
	if b.flushDue(now) {
		b.flush(b.lanes == 1)
	}
	if !slot.acquire(w.h, b) {
		return false
	}
	defer slot.yield(w.h)
	m := b.msgs[i]
	dc := int64(1)
	if b.counts != nil {
		dc = b.counts[m.ID]
	}
	b.handle(Message{StreamKey: w.key, Shard: w.shard, ID: m.ID, Values: m.Values, Epoch: b.epoch, DeliveryCount: dc, FencingToken: w.fence.Token}, now)
	return true
}

// abandon leaves n entries pending in Redis without running them.
func (b *batch) abandon(n int) {
	b.w.inFlight.Add(-int64(n))
	b.w.noteDone(n, "")
}

// finish records one entry finished without a pending acknowledgement.
func (b *batch) finish(acked bool, id string) {
	b.w.inFlight.Add(-1)
	if acked {
		b.w.noteDone(1, id)
	} else {
		b.w.noteDone(1, "")
	}
}

// handle runs the handler with retries; success queues the acknowledgement
// (flush checks ownership for it), MaxDeliveries failures dead-letter the
// entry. start has just checked ownership at now.
func (b *batch) handle(msg Message, now time.Time) {
	w := b.w
	var bo *retry.Pacer
	for attempt := 0; ; attempt++ {
		if attempt > 0 && (w.workCtx.Err() != nil || !w.token.Valid()) {
			b.finish(false, msg.ID)
			return
		}
		var committed bool // the handler committed its Tx itself
		if w.h.Tx {
			w.newWrites(&msg, &committed)
		}
		err := w.call(msg)
		if w.h.Tx {
			if done := b.settleTx(msg, err, committed, now); done {
				return
			}
		}
		if err == nil {
			// No ownership check here: flush makes the one that counts, right
			// before the XACK, and reports ACK_REFUSED if it fails. Work is
			// abandoned only together with the token (kill, drain timeout).
			b.queue(msg.ID, now)
			return
		}
		if w.workCtx.Err() != nil || !w.token.Valid() {
			w.h.Emit(Event{Type: EventAckRefused, Shard: w.shard, EntryID: msg.ID, Epoch: msg.Epoch, Err: err})
			b.finish(false, msg.ID)
			return
		}
		// Acknowledge what succeeded before this entry first: dead-lettering
		// acknowledges out of band, and a retry may take long.
		b.flush(b.lanes == 1)
		if msg.DeliveryCount >= int64(w.h.MaxDeliveries) {
			b.finish(w.deadLetter(msg, err), msg.ID)
			return
		}
		w.h.Log.Debug("handler failed; retrying", "shard", w.shard, "id", msg.ID, "delivery", msg.DeliveryCount, "error", err)
		if bo == nil {
			bo = retry.NewBackoff(w.h.RetryBackoff, w.h.MaxRetryBackoff)
		}
		if !bo.Wait(w.workCtx) {
			b.finish(false, msg.ID)
			return
		}
		msg.DeliveryCount++
	}
}

// settleTx closes the transaction of a delivery whose handler returned err;
// done: the entry is finished (committed by the handler, queued for the
// batch's commit, or left pending because its own commit failed). The
// writes of a failed handler are dropped, and the retry starts a new Tx.
func (b *batch) settleTx(msg Message, err error, committed bool, now time.Time) (done bool) {
	w := b.w
	if committed {
		if err != nil {
			w.h.Log.Debug("handler failed after committing its transaction: the entry stays acknowledged", "shard", w.shard, "id", msg.ID, "error", err)
		}
		b.finish(true, msg.ID)
		return true
	}
	if err != nil {
		_, _ = msg.Writes.Close("the handler failed and its writes were dropped")
		return false
	}
	ops, cerr := msg.Writes.Close("the handler returned")
	if cerr != nil { // its own Commit failed: nothing written, still pending
		b.finish(false, msg.ID)
		return true
	}
	b.lock()
	if len(b.acks) == 0 && len(b.txs) == 0 {
		b.queuedAt = now
	}
	b.txs = append(b.txs, txEntry{id: msg.ID, ops: ops, size: msg.Writes.Bytes()})
	b.unlock()
	return true
}

// queue adds a finished entry to the batch's XACK; now is about when its
// handler started (the clock is not read again per entry).
func (b *batch) queue(id string, now time.Time) {
	b.lock()
	if len(b.acks) == 0 {
		b.queuedAt = now
	}
	b.acks = append(b.acks, id)
	b.unlock()
}

// lock guards the ack queue; with one lane only the worker goroutine uses it.
func (b *batch) lock() {
	if b.lanes > 1 {
		b.mu.Lock()
	}
}

func (b *batch) unlock() {
	if b.lanes > 1 {
		b.mu.Unlock()
	}
}

// flushDue reports acknowledgements waiting for maxAckDelay or longer at now.
func (b *batch) flushDue(now time.Time) bool {
	b.lock()
	defer b.unlock()
	return (len(b.acks) > 0 || len(b.txs) > 0) && now.Sub(b.queuedAt) >= b.w.h.MaxAckDelay
}

// flush acknowledges the queued entries (see worker.ackBatch); onWorker:
// called from the worker goroutine, which may use the reader's connection.
func (b *batch) flush(onWorker bool) {
	if b.w.h.Tx {
		b.flushTx()
		return
	}
	b.lock()
	ids := b.acks
	b.acks = nil
	b.unlock()
	if len(ids) == 0 {
		return
	}
	ok := b.w.ackBatch(ids, b.epoch, onWorker)
	b.w.inFlight.Add(-int64(len(ids)))
	last := ids[len(ids)-1]
	if b.lanes <= 1 {
		b.acks = ids[:0] // nothing kept ids: reuse the array for the rest of the batch
	}
	if !ok {
		b.w.noteDone(len(ids), "")
		return
	}
	if b.lanes > 1 { // finished out of order
		for _, id := range ids {
			if protocol.StreamIDLess(last, id) {
				last = id
			}
		}
	}
	b.w.noteDone(len(ids), last)
}

// call runs the handler, turning a panic into an error.
func (w *Worker) call(msg Message) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("membersdk: handler panic: %v", r)
		}
	}()
	return w.h.Handle(w.workCtx, msg)
}
