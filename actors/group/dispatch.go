package group

import (
	"sync"
	"time"
)

// workers is the dispatcher of group and member actors. protoactor's default
// dispatcher starts a goroutine each time an idle mailbox gets a message; a
// group actor's evaluation then grows that fresh goroutine's stack (copying
// it) on nearly every heartbeat. workers runs mailboxes on goroutines that
// outlive one mailbox run: an idle worker takes the next mailbox. A mailbox
// never waits for a worker (a new one is started when none is idle), so a
// group blocked on Redis never holds others up.
//
// Idle workers are ended by a reaper every workerIdle: each worker idle at
// that moment exits (the next mailbox that finds none idle starts one). An
// idle worker waits on the work channel alone: a timer in the same select
// (one per worker) cost a timer lock on every park and wake-up, more than
// the hand-off itself.
type workers struct {
	work   chan func()
	reaper sync.Once
}

// workerIdle is how often idle workers are ended.
const workerIdle = 10 * time.Second

// mailboxThroughput is protoactor's default: messages per mailbox run before
// the worker yields.
const mailboxThroughput = 300

// actorWorkers is the one dispatcher of every group and member actor of the process.
var actorWorkers = &workers{work: make(chan func())}

func (w *workers) Schedule(fn func()) {
	w.reaper.Do(func() { go w.reap() })
	select {
	case w.work <- fn: // an idle worker took it
	default:
		go w.run(fn)
	}
}

func (w *workers) Throughput() int { return mailboxThroughput }

// run runs fn, then the mailboxes handed to it, until it is handed nil.
func (w *workers) run(fn func()) {
	for fn != nil {
		fn()
		fn = <-w.work
	}
}

// reap ends, every workerIdle, the workers idle at that moment (a nil hands
// one its end; the sends stop when no worker is waiting).
func (w *workers) reap() {
	for range time.Tick(workerIdle) {
		for sent := true; sent; {
			select {
			case w.work <- nil:
			default:
				sent = false
			}
		}
	}
}
