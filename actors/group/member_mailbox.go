package group

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// memberMailbox is the mailbox of member actors: protoactor's default mailbox
// semantics (system messages first, SuspendMailbox/ResumeMailbox, a panic
// escalated to the supervisor with the message, the dispatcher's throughput)
// in one small record. A member actor receives a message about once per lease
// (arm, its own timeout, Started/Stop), so its queues live in a record of their
// own (memberQueues) that exists only while a message waits, and it points at the
// dispatcher every member actor shares instead of holding its own interface
// value: an idle member actor's mailbox is 48 bytes (a 48-byte allocation);
// protoactor's lock-free mailbox costs about four times as much per idle actor (the mailbox, two queues with a
// stub node each). No mailbox middleware and no MessageBatch expansion: member
// actors use neither.
type memberMailbox struct {
	mu        sync.Mutex
	scheduled atomic.Bool
	suspended bool          // guarded by mu
	q         *memberQueues // guarded by mu; nil while both queues are empty

	invoker    actor.MessageInvoker
	dispatcher *actor.Dispatcher // &memberDispatcher for member actors (RegisterHandlers)
}

// memberDispatcher is the dispatcher of every member actor (newMemberProps): their mailboxes point at it.
var memberDispatcher actor.Dispatcher = actorWorkers

// memberQueues are a mailbox's waiting messages; a mailbox drops them once both are empty.
type memberQueues struct{ sys, user []any }

func newMemberMailbox() actor.Mailbox { return &memberMailbox{} }

func (m *memberMailbox) PostUserMessage(msg any) {
	m.mu.Lock()
	q := m.queues()
	q.user = append(q.user, msg)
	m.mu.Unlock()
	m.schedule()
}

func (m *memberMailbox) PostSystemMessage(msg any) {
	m.mu.Lock()
	q := m.queues()
	q.sys = append(q.sys, msg)
	m.mu.Unlock()
	m.schedule()
}

// queues returns the mailbox's queues, creating them if needed; m.mu is held.
func (m *memberMailbox) queues() *memberQueues {
	if m.q == nil {
		m.q = &memberQueues{}
	}
	return m.q
}

func (m *memberMailbox) RegisterHandlers(invoker actor.MessageInvoker, dispatcher actor.Dispatcher) {
	m.invoker = invoker
	if dispatcher == memberDispatcher {
		m.dispatcher = &memberDispatcher
	} else {
		m.dispatcher = &dispatcher // another dispatcher (tests): its own copy
	}
}

func (m *memberMailbox) Start() {}

func (m *memberMailbox) UserMessageCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.q == nil {
		return 0
	}
	return len(m.q.user)
}

func (m *memberMailbox) schedule() {
	if m.scheduled.CompareAndSwap(false, true) {
		(*m.dispatcher).Schedule(m.process)
	}
}

// process runs the mailbox until it has nothing it may deliver, then goes idle;
// a message posted after the last look schedules it again (schedule).
func (m *memberMailbox) process() {
	for {
		m.run()
		m.scheduled.Store(false)
		m.mu.Lock()
		more := m.q != nil && (len(m.q.sys) > 0 || !m.suspended && len(m.q.user) > 0)
		m.mu.Unlock()
		if !more || !m.scheduled.CompareAndSwap(false, true) {
			return
		}
	}
}

func (m *memberMailbox) run() {
	var msg any
	defer func() {
		if r := recover(); r != nil {
			m.invoker.EscalateFailure(r, msg)
		}
	}()
	i, t := 0, (*m.dispatcher).Throughput()
	for {
		if i > t {
			i = 0
			runtime.Gosched()
		}
		i++
		var sys bool
		if msg, sys = m.next(); msg == nil {
			return
		}
		if sys {
			m.invoker.InvokeSystemMessage(msg)
		} else {
			m.invoker.InvokeUserMessage(msg)
		}
	}
}

// next pops the next deliverable message: a system message, else (unless
// suspended) a user message; nil if there is none. Suspend and resume are
// applied here and not delivered, as protoactor's mailbox does.
func (m *memberMailbox) next() (any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	defer m.dropEmpty()
	for m.q != nil && len(m.q.sys) > 0 {
		msg := popQueue(&m.q.sys)
		switch msg.(type) {
		case *actor.SuspendMailbox:
			m.suspended = true
		case *actor.ResumeMailbox:
			m.suspended = false
		default:
			return msg, true
		}
	}
	if m.suspended || m.q == nil || len(m.q.user) == 0 {
		return nil, false
	}
	return popQueue(&m.q.user), false
}

// dropEmpty lets go of the queues once both are empty; m.mu is held.
func (m *memberMailbox) dropEmpty() {
	if m.q != nil && m.q.sys == nil && m.q.user == nil {
		m.q = nil
	}
}

// popQueue removes the first element of a non-empty queue, dropping the array once it is empty.
func popQueue(q *[]any) any {
	msg := (*q)[0]
	(*q)[0] = nil
	if *q = (*q)[1:]; len(*q) == 0 {
		*q = nil
	}
	return msg
}
