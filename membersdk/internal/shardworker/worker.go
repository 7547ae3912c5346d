package shardworker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/internal/retry"
	"github.com/redisstream/coordinator/membersdk/internal/shard"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Worker states.
const (
	StateRunning  int32 = iota // reading
	StateRevoking              // asked to give the shard up: reader stopping, handlers draining
	StateKilled                // stop at once: no more reads, no more XACK
)

// Worker reads one shard. There is at most one per shard in a Consumer: a
// new one is started only after the previous one has exited.
type Worker struct {
	h     *Host
	shard int
	key   string
	token *shard.Ownership
	fence fence.Hold // read in run before anything else touches the shard

	readCtx    context.Context // cancelled: stop reading (revoke, kill)
	readCancel context.CancelFunc
	workCtx    context.Context // cancelled: abandon handlers (kill, drain timeout)
	workCancel context.CancelFunc

	state      atomic.Int32
	inRead     atomic.Bool  // a Redis read that delivers entries (XAUTOCLAIM, XREADGROUP) may be in flight
	inFlight   atomic.Int64 // entries delivered to this worker and not finished
	reclaim    atomic.Bool  // an XACK or a read failed: entries may sit in our PEL
	drainTimer atomic.Pointer[time.Timer]
	reader     *shard.Reader // the connection XREADGROUP blocks on
	finished   chan struct{} // closed when the worker has reported its exit
	finishOnce sync.Once

	mu         sync.Mutex
	exitErr    error // why in-flight work was abandoned, if it was
	lastRead   string
	lastAcked  string
	pending    int64
	progressAt time.Time
}

// New returns the (not yet running) worker of shard index.
func New(h *Host, index int) *Worker {
	w := &Worker{
		h:        h,
		shard:    index,
		key:      protocol.StreamKey(h.StreamPrefix, index),
		token:    shard.NewOwnership(h.Gate),
		finished: make(chan struct{}),
	}
	w.reader = shard.NewReader(shard.ReaderConfig{
		Redis: h.Redis, Group: h.Group, Member: h.Member,
		Key: w.key, Shard: index, Count: h.BatchSize, Block: h.BlockTimeout,
		Log: h.Log, InRead: &w.inRead,
	})
	w.readCtx, w.readCancel = context.WithCancel(context.Background())
	w.workCtx, w.workCancel = context.WithCancel(context.Background())
	return w
}

func (w *Worker) StateNow() int32 { return w.state.Load() }

// revoke stops reading; handlers may finish within timeout, after which they
// are abandoned (their entries stay pending for the next owner).
func (w *Worker) Revoke(timeout time.Duration) {
	if !w.state.CompareAndSwap(StateRunning, StateRevoking) {
		return
	}
	w.readCancel()
	w.reader.Unblock()
	w.drainTimer.Store(time.AfterFunc(timeout, func() {
		if w.inFlight.Load() > 0 {
			w.mu.Lock()
			w.exitErr = fmt.Errorf("membersdk: shard %d: in-flight work abandoned after rebalance timeout %s", w.shard, timeout)
			w.mu.Unlock()
		}
		w.token.Lose()
		w.workCancel()
	}))
}

// kill stops reading and acking at once.
func (w *Worker) Kill() {
	w.state.Store(StateKilled)
	w.token.Lose()
	w.readCancel() // before workCancel: see watch
	w.workCancel()
	w.reader.Unblock()
}

// RevokeState is what the heartbeat reports for a shard being given up.
func (w *Worker) RevokeState() string {
	if w.state.Load() != StateRevoking {
		return ""
	}
	if w.inRead.Load() {
		return protocol.RevokeStateRevoking // a read may still hand it entries
	}
	return protocol.RevokeStateDraining
}

func (w *Worker) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.exitErr
}

func (w *Worker) Progress() protocol.ShardProgress {
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

// noteRead records entries handed to this worker (in stream order).
func (w *Worker) noteRead(msgs []redis.XMessage) {
	last := msgs[len(msgs)-1].ID
	w.mu.Lock()
	if protocol.StreamIDLess(w.lastRead, last) {
		w.lastRead = last
	}
	w.pending += int64(len(msgs))
	w.progressAt = w.h.Now()
	w.mu.Unlock()
}

// noteDone records n entries finished; lastAcked is the highest id among
// those acknowledged ("" if none was).
func (w *Worker) noteDone(n int, lastAcked string) {
	w.mu.Lock()
	w.pending -= int64(n)
	if lastAcked != "" && protocol.StreamIDLess(w.lastAcked, lastAcked) {
		w.lastAcked = lastAcked
	}
	w.progressAt = w.h.Now()
	w.mu.Unlock()
}

// run is the worker goroutine: claim what a previous owner left pending,
// then read new entries, until revoked or killed.
//
// Handlers run on this goroutine (PerShardConcurrency 1), so it can be stuck
// in a handler that ignores its context; watch then reports the exit in its
// place.
func (w *Worker) Run() {
	go w.watch()
	defer w.finish()
	if !w.holdFence() {
		return
	}
	w.h.Emit(Event{Type: EventShardStarted, Shard: w.shard})
	w.confirmAcks()
	if w.claimPending() {
		w.dropDeadNames()
	}
	w.readNew()
}

// finish reports the worker's exit, once: after it no XACK from this worker
// can reach Redis (the token is sealed) and no read can deliver it entries.
func (w *Worker) finish() {
	w.finishOnce.Do(func() {
		if t := w.drainTimer.Load(); t != nil {
			t.Stop()
		}
		w.token.Seal() // no XACK from this worker after it reports its exit
		w.readCancel()
		w.workCancel()
		w.reader.Release()
		close(w.finished)
		w.h.Exits <- w
	})
}

// watch reports the exit of a worker whose work was abandoned (kill, drain
// timeout) while its goroutine is still in a handler, so that a handler
// ignoring its context does not hold up fencing, rejoining or shutdown. It
// waits only for a read that may deliver entries (inRead), which ends soon
// (CLIENT UNBLOCK, or BlockTimeout). A read cannot start afterwards:
// readCtx is cancelled before workCtx, and readers set inRead before they
// check readCtx. When the handler returns, its acknowledgement is refused
// by the sealed token and the goroutine winds down without touching Redis.
func (w *Worker) watch() {
	select {
	case <-w.workCtx.Done():
	case <-w.finished:
		return
	}
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for w.inRead.Load() {
		select {
		case <-w.finished:
			return
		case <-t.C:
		}
	}
	w.finish()
}

// readNew reads new entries (XREADGROUP >) until the reader is cancelled.
func (w *Worker) readNew() {
	bo := retry.NewBackoff(100*time.Millisecond, 2*time.Second)
	lastSweep := w.h.Now()
	lastNames := lastSweep
	for w.readCtx.Err() == nil {
		if now := w.h.Now(); now.Sub(lastSweep) >= orphanSweepEvery {
			lastSweep = now
			if w.orphans() {
				w.reclaim.Store(true)
			}
		}
		if now := w.h.Now(); now.Sub(lastNames) >= namesSweepEvery {
			lastNames = now
			w.dropDeadNames()
		}
		if w.reclaim.Swap(false) {
			// A failed XACK or a read whose reply was lost leaves entries in
			// this consumer's PEL that nothing would deliver again; nothing is
			// in flight here, so settle and claim them back.
			w.confirmAcks()
			if w.claimPending() {
				w.dropDeadNames()
			}
			continue
		}
		res, err := w.reader.Read(w.readCtx)
		if errors.Is(err, redis.Nil) {
			bo.Reset()
			continue
		}
		if err != nil {
			if !w.recoverReadError(err, bo) {
				return
			}
			continue
		}
		bo.Reset()
		// Entries Redis delivered are ours to finish even if the reader was
		// cancelled meanwhile (revoke drains them; kill leaves them pending).
		for _, s := range res {
			w.process(s.Messages, nil)
		}
	}
}

// recoverReadError logs err and waits before the next attempt. It returns
// false when the worker must stop reading.
func (w *Worker) recoverReadError(err error, bo *retry.Pacer) bool {
	if w.readCtx.Err() != nil {
		return false
	}
	w.reclaim.Store(true)
	if isShardMissing(err) {
		return w.idleMissing(err)
	}
	w.h.Log.Warn("redis read failed; retrying", "shard", w.shard, "key", w.key, "error", err)
	return bo.Wait(w.readCtx)
}

// isShardMissing reports Redis' answer to XREADGROUP/XAUTOCLAIM on a shard
// whose stream key or consumer group does not exist ("NOGROUP No such key
// … or consumer group …").
func isShardMissing(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOGROUP")
}

// idleMissing handles a shard whose stream or consumer group is gone while
// it is owned (retired by a scale-in, deleted or renamed by an operator):
// the worker recreates nothing — the coordinator creates groups, and a
// stream recreated here would hold entries nobody routes to. It logs once
// and stops reading, still owning the shard (the heartbeat keeps listing
// it), until the coordinator revokes it or the member stops (false). Every
// few seconds it looks whether the shard came back (the rollback of a
// scale-in creates a retired shard again, with the consumer group reading
// from the start, and may leave it with the same owner): then it reads the
// fence again and goes on reading (true).
func (w *Worker) idleMissing(err error) bool {
	w.h.Log.Warn("shard stream or consumer group no longer exists; not reading the shard (nothing is recreated) until the coordinator revokes it or it comes back",
		"shard", w.shard, "key", w.key, "error", err)
	bo := retry.NewBackoff(500*time.Millisecond, 5*time.Second)
	for bo.Wait(w.readCtx) {
		if w.shardBack() {
			w.h.Log.Info("shard stream and consumer group exist again; reading the shard", "shard", w.shard, "key", w.key)
			return w.holdFence()
		}
	}
	return false
}

// shardBack reports whether the shard stream and this group's consumer
// group on it exist (one XINFO GROUPS; false on any error).
func (w *Worker) shardBack() bool {
	groups, err := w.h.Redis.XInfoGroups(w.readCtx, w.key).Result()
	if err != nil {
		return false
	}
	for _, g := range groups {
		if g.Name == w.h.Group {
			return true
		}
	}
	return false
}

// holdFence reads the shard's fence before the worker touches the shard. It
// returns false when the worker must not read: the fence names another
// owner (the grant this worker was started for is not in Redis yet or was
// already superseded; a later heartbeat starts the shard again), or the
// worker was stopped while Redis could not be read.
func (w *Worker) holdFence() bool {
	key := fence.Key(w.key, w.h.Group)
	bo := retry.NewBackoff(100*time.Millisecond, 2*time.Second)
	for {
		h, err := fence.Read(context.WithoutCancel(w.readCtx), w.h.Redis, key, w.h.Member)
		switch {
		case err == nil:
			w.fence = h
			if !h.Fenced {
				w.h.Log.Debug("shard has no fence in Redis (the coordinator does not fence); acknowledging unfenced", "shard", w.shard, "fence", key)
			}
			return true
		case errors.Is(err, fence.ErrNotOwned):
			w.h.Log.Warn("shard assigned but its fence names another owner; not reading it, will retry on the next heartbeat", "shard", w.shard, "error", err)
			w.h.Emit(Event{Type: EventFenceNotHeld, Shard: w.shard, Err: err})
			return false
		}
		w.h.Log.Warn("reading the shard fence failed; retrying", "shard", w.shard, "fence", key, "error", err)
		if !bo.Wait(w.readCtx) {
			return false
		}
	}
}

// fenced handles a write the shard fence refused: report it (ACK_FENCED, one
// per entry, or one for the shard when ids is empty), count it, and stop the
// worker at once — Redis says the shard belongs to someone else, so nothing
// this worker reads or finishes can be acknowledged any more. Entries stay
// pending for the real owner.
func (w *Worker) fenced(err error, epoch int64, ids ...string) {
	w.h.FencedOps.Add(1)
	w.h.Log.Warn("the shard fence refused a write: the shard belongs to another owner now; stopping the shard", "shard", w.shard, "entries", len(ids), "error", err)
	if len(ids) == 0 {
		w.h.Emit(Event{Type: EventAckFenced, Shard: w.shard, Epoch: epoch, Err: err})
	}
	for _, id := range ids {
		w.h.Emit(Event{Type: EventAckFenced, Shard: w.shard, EntryID: id, Epoch: epoch, Err: err})
	}
	w.Kill()
}

// hookBeforeWrite runs the test hook, if any.
func (w *Worker) hookBeforeWrite(op string) {
	if h := w.h.BeforeWrite; h != nil {
		h(op, w.shard)
	}
}

// Shard is the worker's shard index.
func (w *Worker) Shard() int { return w.shard }

// InFlight is how many entries delivered to the worker are not finished.
func (w *Worker) InFlight() int64 { return w.inFlight.Load() }

// Finished is closed once the worker has reported its exit.
func (w *Worker) Finished() <-chan struct{} { return w.finished }
