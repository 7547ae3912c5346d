package membersdk

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// batch is one read's entries on their way through the handlers. Handlers
// run in stream order on PerShardConcurrency lanes (one lane: one entry at a
// time, in order); the entries whose handler succeeded are acknowledged
// together by flush — one ownership check and one XACK for the batch —
// when the batch is done, and earlier when an entry is about to wait for a
// retry or be dead-lettered, so that finished work is not held up behind it,
// and before the next handler starts once acknowledgements have waited
// maxAckDelay (slow handlers: the XACK round trip is small next to them, and
// a fence in the middle of a slow batch should not redeliver work already
// done).
type batch struct {
	w      *worker
	msgs   []redis.XMessage
	counts map[string]int64 // delivery counts of claimed entries; nil: first delivery
	epoch  int64
	next   atomic.Int64 // index of the next entry to start (lanes > 1)

	mu       sync.Mutex
	acks     []ackEntry // succeeded, not yet acknowledged
	queuedAt time.Time  // when acks became non-empty
}

// maxAckDelay bounds how long a finished entry waits for the batch's XACK
// while further handlers of the batch start (not while one runs).
const maxAckDelay = time.Millisecond

// process hands the entries to handlers and waits until they are all
// finished and the successful ones acknowledged, or until the worker's work
// is abandoned (kill, drain timeout): handlers still running then finish on
// their own and their acknowledgement is refused by the ownership check.
func (w *worker) process(msgs []redis.XMessage, counts map[string]int64) {
	if len(msgs) == 0 {
		return
	}
	w.noteRead(msgs)
	w.inFlight.Add(int64(len(msgs)))
	b := &batch{w: w, msgs: msgs, counts: counts, epoch: w.c.epoch.Load(), acks: make([]ackEntry, 0, len(msgs))}
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.run(min(w.c.cfg.PerShardConcurrency, len(msgs)))
	}()
	select {
	case <-done:
	case <-w.workCtx.Done():
	}
}

// run drives the batch on lanes goroutines (this one included) and flushes
// the acknowledgements at the end.
func (b *batch) run(lanes int) {
	if lanes <= 1 {
		for i := range b.msgs {
			if !b.start(i) {
				b.abandon(len(b.msgs) - i)
				break
			}
		}
	} else {
		var wg sync.WaitGroup
		for range lanes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b.lane()
			}()
		}
		wg.Wait()
	}
	b.flush()
}

// lane takes the next entry until none is left; once work is abandoned it
// gives up the rest.
func (b *batch) lane() {
	for {
		i := int(b.next.Add(1) - 1)
		if i >= len(b.msgs) {
			return
		}
		if !b.start(i) {
			b.abandon(1)
		}
	}
}

// start runs entry i if the worker may still work, in one of the member's
// Concurrency slots; false means it was not started.
func (b *batch) start(i int) bool {
	w := b.w
	if w.workCtx.Err() != nil || !w.token.valid() {
		return false
	}
	select {
	case w.c.sem <- struct{}{}:
	case <-w.workCtx.Done():
		return false
	}
	if b.flushDue() {
		b.flush()
	}
	w.c.running.Add(1)
	defer func() {
		w.c.running.Add(-1)
		<-w.c.sem
	}()
	m := b.msgs[i]
	dc := int64(1)
	if b.counts != nil {
		dc = b.counts[m.ID]
	}
	b.handle(Message{StreamKey: w.key, Shard: w.shard, ID: m.ID, Values: m.Values, Epoch: b.epoch, DeliveryCount: dc})
	return true
}

// abandon leaves n entries pending in Redis without running them.
func (b *batch) abandon(n int) {
	b.w.inFlight.Add(-int64(n))
	b.w.noteDone(n, nil)
}

// finish records one entry finished without a pending acknowledgement.
func (b *batch) finish(acked bool, id string) {
	b.w.inFlight.Add(-1)
	if acked {
		b.w.noteDone(1, []ackEntry{{id: id}})
	} else {
		b.w.noteDone(1, nil)
	}
}

// handle runs the handler with retries; success queues the acknowledgement,
// MaxDeliveries failures dead-letter the entry.
func (b *batch) handle(msg Message) {
	w := b.w
	var bo *retryPacer
	for {
		if w.workCtx.Err() != nil || !w.token.valid() {
			b.finish(false, msg.ID)
			return
		}
		err := w.call(msg)
		if w.workCtx.Err() != nil || !w.token.valid() {
			w.c.emit(Event{Type: EventAckRefused, Shard: w.shard, EntryID: msg.ID, Epoch: msg.Epoch, Err: err})
			b.finish(false, msg.ID)
			return
		}
		if err == nil {
			b.queue(ackEntry{id: msg.ID, epoch: msg.Epoch})
			return
		}
		// Acknowledge what succeeded before this entry first: dead-lettering
		// acknowledges out of band, and a retry may take long.
		b.flush()
		if msg.DeliveryCount >= int64(w.c.cfg.MaxDeliveries) {
			b.finish(w.deadLetter(msg, err), msg.ID)
			return
		}
		w.c.log.Debug("handler failed; retrying", "shard", w.shard, "id", msg.ID, "delivery", msg.DeliveryCount, "error", err)
		if bo == nil {
			bo = newBackoff(w.c.cfg.RetryBackoff, w.c.cfg.MaxRetryBackoff)
		}
		if !bo.wait(w.workCtx) {
			b.finish(false, msg.ID)
			return
		}
		msg.DeliveryCount++
	}
}

func (b *batch) queue(a ackEntry) {
	b.mu.Lock()
	if len(b.acks) == 0 {
		b.queuedAt = time.Now()
	}
	b.acks = append(b.acks, a)
	b.mu.Unlock()
}

// flushDue reports acknowledgements waiting for maxAckDelay or longer.
func (b *batch) flushDue() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.acks) > 0 && time.Since(b.queuedAt) >= b.w.c.maxAckDelay
}

// flush acknowledges the queued entries (see worker.ackBatch).
func (b *batch) flush() {
	b.mu.Lock()
	acks := b.acks
	b.acks = nil
	b.mu.Unlock()
	if len(acks) == 0 {
		return
	}
	ok := b.w.ackBatch(acks)
	b.w.inFlight.Add(-int64(len(acks)))
	if ok {
		b.w.noteDone(len(acks), acks)
	} else {
		b.w.noteDone(len(acks), nil)
	}
}

// call runs the handler, turning a panic into an error.
func (w *worker) call(msg Message) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("membersdk: handler panic: %v", r)
		}
	}()
	return w.c.handler(w.workCtx, msg)
}
