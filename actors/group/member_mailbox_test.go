package group

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recInvoker records what the mailbox delivers; "boom" panics.
type recInvoker struct {
	mu        sync.Mutex
	got       []string
	escalated []any
	delivered *sync.WaitGroup // if set, Done per delivered user message
}

func (r *recInvoker) InvokeSystemMessage(m any) { r.add("sys:" + m.(string)) }
func (r *recInvoker) InvokeUserMessage(m any) {
	if m == "boom" {
		panic("boom")
	}
	r.add("user:" + m.(string))
	if r.delivered != nil {
		r.delivered.Done()
	}
}
func (r *recInvoker) EscalateFailure(reason, m any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.escalated = append(r.escalated, m)
}
func (r *recInvoker) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, s)
}

// heldDispatcher runs scheduled mailboxes only when told (release).
type heldDispatcher struct{ fns []func() }

func (d *heldDispatcher) Schedule(fn func()) { d.fns = append(d.fns, fn) }
func (d *heldDispatcher) Throughput() int    { return 2 }
func (d *heldDispatcher) release() {
	for len(d.fns) > 0 {
		fn := d.fns[0]
		d.fns = d.fns[1:]
		fn()
	}
}

func TestMemberMailboxOrderSuspendAndFailure(t *testing.T) {
	inv, d := &recInvoker{}, &heldDispatcher{}
	m := newMemberMailbox().(*memberMailbox)
	m.RegisterHandlers(inv, d)

	m.PostUserMessage("u1")
	m.PostUserMessage("u2")
	m.PostSystemMessage("s1")
	assert.Equal(t, 2, m.UserMessageCount())
	require.Len(t, d.fns, 1, "scheduled once while not running")
	d.release()
	assert.Equal(t, []string{"sys:s1", "user:u1", "user:u2"}, inv.got, "system messages first")
	assert.Nil(t, m.q, "no queues kept while empty")

	inv.got = nil
	m.PostSystemMessage(&actor.SuspendMailbox{})
	m.PostUserMessage("u3")
	m.PostSystemMessage("s2")
	d.release()
	assert.Equal(t, []string{"sys:s2"}, inv.got, "suspended: system messages only")
	assert.Equal(t, 1, m.UserMessageCount())
	m.PostSystemMessage(&actor.ResumeMailbox{})
	d.release()
	assert.Equal(t, []string{"sys:s2", "user:u3"}, inv.got, "resumed: the held user message follows")

	inv.got = nil
	m.PostUserMessage("boom")
	m.PostUserMessage("u4")
	d.release()
	assert.Equal(t, []any{"boom"}, inv.escalated, "a panic is escalated with its message")
	assert.Equal(t, []string{"user:u4"}, inv.got, "the mailbox goes on after a failure")
}

func TestMemberMailboxConcurrentPosts(t *testing.T) {
	var delivered sync.WaitGroup
	delivered.Add(2000)
	inv := &recInvoker{delivered: &delivered}
	m := newMemberMailbox().(*memberMailbox)
	m.RegisterHandlers(inv, actorWorkers)
	var wg sync.WaitGroup
	for p := 0; p < 4; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				m.PostUserMessage("u")
			}
		}()
	}
	wg.Wait()
	delivered.Wait() // a lost message would hang here (go test's timeout reports it)
	assert.Len(t, inv.got, 2000, "every message delivered exactly once")
	assert.Equal(t, 0, m.UserMessageCount())
}

// An idle member actor's mailbox is one 48-byte allocation (docs/BENCHMARKS.md, "Memory per
// member"): a node keeps one per member.
func TestMemberMailboxIsSmallWhileIdle(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(memberMailbox{}), uintptr(48))
	shared := newMemberMailbox().(*memberMailbox)
	shared.RegisterHandlers(&recInvoker{}, actorWorkers)
	require.Same(t, &memberDispatcher, shared.dispatcher, "member actors' mailboxes share one dispatcher value")
	inv, d := &recInvoker{}, &heldDispatcher{}
	m := newMemberMailbox().(*memberMailbox)
	m.RegisterHandlers(inv, d)
	m.PostSystemMessage(&actor.SuspendMailbox{})
	m.PostUserMessage("u1")
	d.release()
	require.NotNil(t, m.q, "a held user message keeps its queue")
	m.PostSystemMessage(&actor.ResumeMailbox{})
	d.release()
	assert.Equal(t, []string{"user:u1"}, inv.got)
	assert.Nil(t, m.q, "the queues are dropped once both are empty")
}
