package mailbox

import (
	"context"
	"log/slog"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Nudger pushes nudges (docs/PROTOCOL.md, "Nudges") to mailbox members' reply lists, with the
// reply script (LPUSH + LTRIM + PEXPIRE: bounded like replies). A group actor decides whom to
// nudge (actors/groupstate/nudge.go) and calls Nudge, which never blocks: nudges wait in a
// bounded queue and a few workers push them; one that finds the queue full is dropped and
// counted (the member heartbeats at its interval, as over HTTP). It implements
// actors/group/groupdeps.Nudger without importing it.
type Nudger struct {
	rdb     redis.UniversalClient
	o       NudgerOptions
	queue   chan nudge
	stop    chan struct{}
	wg      sync.WaitGroup
	stopped sync.Once
}

type nudge struct{ stream, group, member, principal string }

// NudgerOptions configure a Nudger.
type NudgerOptions struct {
	KeyPrefix  string // store.key-prefix
	MaxReplies int    // LTRIM: most elements kept in a reply list (as the Reader's)
	ReplyTTL   int64  // PEXPIRE in milliseconds (mailbox.reply-ttl)
	Queue      int    // nudges waiting at most (default DefaultNudgeQueue)
	Workers    int    // pushes at once (default DefaultNudgeWorkers)
	Logger     *slog.Logger
	Metrics    NudgeMetrics
}

// NudgeMetrics counts nudges by result (rsc_mailbox_nudges_total): NudgeSent, NudgeDropped
// (the queue was full), NudgeFailed (Redis refused or timed out).
type NudgeMetrics interface {
	MailboxNudge(result string)
}

// Results of a nudge (the result label of rsc_mailbox_nudges_total).
const (
	NudgeSent    = "sent"
	NudgeDropped = "dropped"
	NudgeFailed  = "failed"
)

// NudgeResults lists every nudge result, for metrics that pre-create their series.
var NudgeResults = []string{NudgeSent, NudgeDropped, NudgeFailed}

// Defaults of NudgerOptions.
const (
	DefaultNudgeQueue   = 4096
	DefaultNudgeWorkers = 4
)

// NudgeElement is the element a nudge pushes.
var NudgeElement = `{"v":` + strconv.Itoa(protocol.MailboxVersion) + `,"kind":"` + protocol.MailboxKindNudge + `","reason":"shards-freed"}`

// NewNudger starts a Nudger's workers; Stop ends them.
func NewNudger(rdb redis.UniversalClient, o NudgerOptions) *Nudger {
	if o.KeyPrefix == "" {
		o.KeyPrefix = protocol.DefaultMailboxKeyPrefix
	}
	if o.MaxReplies <= 0 {
		o.MaxReplies = DefaultMaxReplies
	}
	if o.Queue <= 0 {
		o.Queue = DefaultNudgeQueue
	}
	if o.Workers <= 0 {
		o.Workers = DefaultNudgeWorkers
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	n := &Nudger{rdb: rdb, o: o, queue: make(chan nudge, o.Queue), stop: make(chan struct{})}
	for range o.Workers {
		n.wg.Add(1)
		go n.work()
	}
	return n
}

// Nudge queues a nudge for member of stream/group, whose principal is principal ("" when
// member authentication is off: the "-" principal). It never blocks.
func (n *Nudger) Nudge(stream, group, member, principal string) {
	if principal == "" {
		principal = protocol.MailboxNoAuthPrincipal
	}
	select {
	case n.queue <- nudge{stream, group, member, principal}:
	default:
		n.count(NudgeDropped)
	}
}

// Stop ends the workers; queued nudges are dropped (advisory).
func (n *Nudger) Stop() {
	n.stopped.Do(func() { close(n.stop) })
	n.wg.Wait()
}

func (n *Nudger) work() {
	defer n.wg.Done()
	for {
		select {
		case <-n.stop:
			return
		case x := <-n.queue:
			n.push(x)
		}
	}
}

func (n *Nudger) push(x nudge) {
	ctx, cancel := context.WithTimeout(context.Background(), replyTimeout)
	defer cancel()
	key := protocol.MailboxReplyKey(n.o.KeyPrefix, x.principal, x.stream, x.group, x.member)
	if err := replyScript.Run(ctx, n.rdb, []string{key}, NudgeElement, n.o.MaxReplies, n.o.ReplyTTL).Err(); err != nil {
		n.o.Logger.Debug("mailbox: pushing a nudge failed; the member heartbeats at its interval", "key", key, "err", err)
		n.count(NudgeFailed)
		return
	}
	n.count(NudgeSent)
}

func (n *Nudger) count(result string) {
	if n.o.Metrics != nil {
		n.o.Metrics.MailboxNudge(result)
	}
}
