package membersdk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/api/protocol"
)

// Worker states.
const (
	stateRunning  int32 = iota // reading
	stateRevoking              // asked to give the shard up: reader stopping, handlers draining
	stateKilled                // stop at once: no more reads, no more XACK
)

// worker reads one shard. There is at most one per shard in a Consumer: a
// new one is started only after the previous one has exited.
type worker struct {
	c     *Consumer
	shard int
	key   string
	token *ownership

	readCtx    context.Context // cancelled: stop reading (revoke, kill)
	readCancel context.CancelFunc
	workCtx    context.Context // cancelled: abandon handlers (kill, drain timeout)
	workCancel context.CancelFunc

	state      atomic.Int32
	inRead     atomic.Bool  // a Redis read (XAUTOCLAIM, XREADGROUP) is in flight
	inFlight   atomic.Int64 // entries delivered to this worker and not finished
	reclaim    atomic.Bool  // an XACK or a read failed: entries may sit in our PEL
	drainTimer atomic.Pointer[time.Timer]
	shardSlots chan struct{}

	mu         sync.Mutex
	exitErr    error // why in-flight work was abandoned, if it was
	lastRead   string
	lastAcked  string
	pending    int64
	progressAt time.Time
}

func newWorker(c *Consumer, shard int) *worker {
	w := &worker{
		c:          c,
		shard:      shard,
		key:        protocol.StreamKey(c.cfg.StreamPrefix, shard),
		token:      newOwnership(&c.gate),
		shardSlots: make(chan struct{}, c.cfg.PerShardConcurrency),
	}
	w.readCtx, w.readCancel = context.WithCancel(context.Background())
	w.workCtx, w.workCancel = context.WithCancel(context.Background())
	return w
}

func (w *worker) stateNow() int32 { return w.state.Load() }

// revoke stops reading; handlers may finish within timeout, after which they
// are abandoned (their entries stay pending for the next owner).
func (w *worker) revoke(timeout time.Duration) {
	if !w.state.CompareAndSwap(stateRunning, stateRevoking) {
		return
	}
	w.readCancel()
	w.drainTimer.Store(time.AfterFunc(timeout, func() {
		if w.inFlight.Load() > 0 {
			w.mu.Lock()
			w.exitErr = fmt.Errorf("membersdk: shard %d: in-flight work abandoned after rebalance timeout %s", w.shard, timeout)
			w.mu.Unlock()
		}
		w.token.lose()
		w.workCancel()
	}))
}

// kill stops reading and acking at once.
func (w *worker) kill() {
	w.state.Store(stateKilled)
	w.token.lose()
	w.workCancel()
	w.readCancel()
}

// revokeState is what the heartbeat reports for a shard being given up.
func (w *worker) revokeState() string {
	if w.state.Load() != stateRevoking {
		return ""
	}
	if w.inRead.Load() {
		return protocol.RevokeStateRevoking // a read may still hand it entries
	}
	return protocol.RevokeStateDraining
}

func (w *worker) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.exitErr
}

func (w *worker) progress() protocol.ShardProgress {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := protocol.ShardProgress{
		Shard:           protocol.ShardID{ShardIndex: w.shard},
		StreamKey:       w.key,
		LastDeliveredID: w.lastRead,
		LastAckedID:     w.lastAcked,
		PendingCount:    w.pending,
	}
	if !w.progressAt.IsZero() {
		p.UpdatedAt = w.progressAt.UTC().Format(time.RFC3339)
	}
	return p
}

func (w *worker) noteRead(id string) {
	w.mu.Lock()
	if idLess(w.lastRead, id) {
		w.lastRead = id
	}
	w.pending++
	w.progressAt = w.c.now()
	w.mu.Unlock()
}

func (w *worker) noteDone(id string, acked bool) {
	w.mu.Lock()
	w.pending--
	if acked && idLess(w.lastAcked, id) {
		w.lastAcked = id
	}
	w.progressAt = w.c.now()
	w.mu.Unlock()
}

// run is the worker goroutine: claim what a previous owner left pending,
// then read new entries, until revoked or killed.
func (w *worker) run() {
	defer func() {
		if t := w.drainTimer.Load(); t != nil {
			t.Stop()
		}
		w.token.seal() // no XACK from this worker after it reports its exit
		w.readCancel()
		w.workCancel()
		w.c.exits <- w
	}()
	w.c.emit(Event{Type: EventShardStarted, Shard: w.shard})
	w.confirmAcks()
	w.claimPending()
	w.readNew()
}

// readNew reads new entries (XREADGROUP >) until the reader is cancelled.
func (w *worker) readNew() {
	bo := newBackoff(100*time.Millisecond, 2*time.Second)
	lastSweep := w.c.now()
	for w.readCtx.Err() == nil {
		if now := w.c.now(); now.Sub(lastSweep) >= orphanSweepEvery {
			lastSweep = now
			if w.orphans() {
				w.reclaim.Store(true)
			}
		}
		if w.reclaim.Swap(false) {
			// A failed XACK or a read whose reply was lost leaves entries in
			// this consumer's PEL that nothing would deliver again; nothing is
			// in flight here, so settle and claim them back.
			w.confirmAcks()
			w.claimPending()
			continue
		}
		w.inRead.Store(true)
		res, err := w.c.cfg.Redis.XReadGroup(context.WithoutCancel(w.readCtx), &redis.XReadGroupArgs{
			Group: w.c.cfg.ConsumerGroup, Consumer: w.c.cfg.MemberID,
			Streams: []string{w.key, ">"}, Count: w.c.cfg.BatchSize, Block: w.c.cfg.BlockTimeout,
		}).Result()
		w.inRead.Store(false)
		if errors.Is(err, redis.Nil) {
			bo.reset()
			continue
		}
		if err != nil {
			if !w.recoverReadError(err, bo) {
				return
			}
			continue
		}
		bo.reset()
		// Entries Redis delivered are ours to finish even if the reader was
		// cancelled meanwhile (revoke drains them; kill leaves them pending).
		for _, s := range res {
			w.process(s.Messages, nil)
		}
	}
}

// recoverReadError logs err, repairs a missing consumer group and waits
// before the next attempt. It returns false when the worker must stop.
func (w *worker) recoverReadError(err error, bo *retryPacer) bool {
	if w.readCtx.Err() != nil {
		return false
	}
	w.reclaim.Store(true)
	if strings.HasPrefix(err.Error(), "NOGROUP") {
		// The coordinator creates the group on every shard before handing it
		// out; recreate it from the start of the stream if it went missing
		// (never creating the stream itself).
		w.c.log.Warn("consumer group missing on shard; creating it from the start of the stream", "shard", w.shard, "key", w.key)
		cerr := w.c.cfg.Redis.XGroupCreate(context.WithoutCancel(w.readCtx), w.key, w.c.cfg.ConsumerGroup, "0").Err()
		if cerr == nil || strings.HasPrefix(cerr.Error(), "BUSYGROUP") {
			return true
		}
		err = fmt.Errorf("%w (create group: %v)", err, cerr)
	}
	w.c.log.Warn("redis read failed; retrying", "shard", w.shard, "key", w.key, "error", err)
	return bo.wait(w.readCtx)
}

// process hands the entries to handlers, in order, at most
// PerShardConcurrency at a time, and waits for them (or for abandonment).
func (w *worker) process(msgs []redis.XMessage, counts map[string]int64) {
	epoch := w.c.epoch.Load()
	var wg sync.WaitGroup
	for i := range msgs {
		w.noteRead(msgs[i].ID)
		w.inFlight.Add(1)
	}
	for i, m := range msgs {
		if w.workCtx.Err() != nil || !w.token.valid() {
			w.abandon(msgs[i:])
			break
		}
		if !w.acquire() {
			w.abandon(msgs[i:])
			break
		}
		dc := int64(1)
		if counts != nil {
			dc = counts[m.ID]
		}
		msg := Message{StreamKey: w.key, Shard: w.shard, ID: m.ID, Values: m.Values, Epoch: epoch, DeliveryCount: dc}
		done := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done)
			defer w.release()
			w.handle(msg)
		}()
		if w.c.cfg.PerShardConcurrency == 1 {
			select {
			case <-done:
			case <-w.workCtx.Done():
				w.abandon(msgs[i+1:])
				return // the handler goroutine finishes on its own; its XACK is refused
			}
		}
	}
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-w.workCtx.Done():
	}
}

// abandon leaves entries pending in Redis without running them.
func (w *worker) abandon(msgs []redis.XMessage) {
	for _, m := range msgs {
		w.inFlight.Add(-1)
		w.noteDone(m.ID, false)
	}
}

func (w *worker) acquire() bool {
	select {
	case w.shardSlots <- struct{}{}:
	case <-w.workCtx.Done():
		return false
	}
	select {
	case w.c.sem <- struct{}{}:
		w.c.running.Add(1)
		return true
	case <-w.workCtx.Done():
		<-w.shardSlots
		return false
	}
}

func (w *worker) release() {
	w.c.running.Add(-1)
	<-w.c.sem
	<-w.shardSlots
}

// handle runs the handler with retries, then acks or dead-letters.
func (w *worker) handle(msg Message) {
	acked := false
	defer func() {
		w.inFlight.Add(-1)
		w.noteDone(msg.ID, acked)
	}()
	bo := newBackoff(w.c.cfg.RetryBackoff, w.c.cfg.MaxRetryBackoff)
	for {
		if w.workCtx.Err() != nil || !w.token.valid() {
			return
		}
		err := w.call(msg)
		if w.workCtx.Err() != nil || !w.token.valid() {
			w.c.emit(Event{Type: EventAckRefused, Shard: w.shard, EntryID: msg.ID, Epoch: msg.Epoch, Err: err})
			return
		}
		if err == nil {
			acked = w.ack(msg)
			return
		}
		if msg.DeliveryCount >= int64(w.c.cfg.MaxDeliveries) {
			acked = w.deadLetter(msg, err)
			return
		}
		w.c.log.Debug("handler failed; retrying", "shard", w.shard, "id", msg.ID, "delivery", msg.DeliveryCount, "error", err)
		if !bo.wait(w.workCtx) {
			return
		}
		msg.DeliveryCount++
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

// ack acknowledges msg if the shard is still owned by this worker.
func (w *worker) ack(msg Message) bool {
	ran, err := w.token.withOwnership(func() error {
		sent := w.c.now()
		if err := w.c.cfg.Redis.XAck(context.Background(), w.key, w.c.cfg.ConsumerGroup, msg.ID).Err(); err != nil {
			return err
		}
		// Reported under the token, so it precedes the shard's release. Time
		// is when the XACK was sent (it took effect between then and now): a
		// pause while waiting for the reply must not look like a late ack.
		w.c.emit(Event{Type: EventAcked, Shard: w.shard, EntryID: msg.ID, Epoch: msg.Epoch, Time: sent})
		return nil
	})
	switch {
	case !ran:
		w.c.emit(Event{Type: EventAckRefused, Shard: w.shard, EntryID: msg.ID, Epoch: msg.Epoch})
		return false
	case err != nil:
		w.c.log.Warn("XACK failed; it will be settled when Redis answers again", "shard", w.shard, "id", msg.ID, "error", err)
		w.c.unconfirmed.add(w.shard, msg.ID, msg.Epoch)
		w.reclaim.Store(true)
		return false
	}
	return true
}

// idLess compares stream ids ("ms-seq"); "" sorts first.
func idLess(a, b string) bool {
	if a == "" {
		return b != ""
	}
	am, as := splitID(a)
	bm, bs := splitID(b)
	if am != bm {
		return am < bm
	}
	return as < bs
}

func splitID(id string) (uint64, uint64) {
	var ms, seq uint64
	i := strings.IndexByte(id, '-')
	if i < 0 {
		_, _ = fmt.Sscan(id, &ms)
		return ms, 0
	}
	_, _ = fmt.Sscan(id[:i], &ms)
	_, _ = fmt.Sscan(id[i+1:], &seq)
	return ms, seq
}
