package group

import "time"

// workers is the dispatcher of group and member actors. protoactor's default
// dispatcher starts a goroutine each time an idle mailbox gets a message; a
// group actor's evaluation then grows that fresh goroutine's stack (copying
// it) on nearly every heartbeat. workers runs mailboxes on goroutines that
// outlive one mailbox run: an idle worker takes the next mailbox, and one
// idle for workerIdle (up to twice that) exits. A mailbox never waits for a
// worker (a new one is started when none is idle), so a group blocked on
// Redis never holds others up.
type workers struct {
	work chan func()
}

// workerIdle is how long an idle worker waits for a mailbox before exiting.
const workerIdle = 10 * time.Second

// mailboxThroughput is protoactor's default: messages per mailbox run before
// the worker yields.
const mailboxThroughput = 300

var actorWorkers = &workers{work: make(chan func())}

func (w *workers) Schedule(fn func()) {
	select {
	case w.work <- fn: // an idle worker took it
	default:
		go w.run(fn)
	}
}

func (w *workers) Throughput() int { return mailboxThroughput }

// run runs fn, then the mailboxes handed to it, until it has been idle for a
// whole tick of workerIdle (between one and two workerIdle after its last
// mailbox run). A ticker, not a timer reset after every run: a reset per
// mailbox run cost more than the rest of the hand-off.
func (w *workers) run(fn func()) {
	idle := time.NewTicker(workerIdle)
	defer idle.Stop()
	for {
		fn()
		worked := true
		for fn = nil; fn == nil; {
			select {
			case fn = <-w.work:
			case <-idle.C:
				if !worked {
					return
				}
				worked = false
			}
		}
	}
}
