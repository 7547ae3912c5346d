package mailbox_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redisstream/coordinator/mailbox"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

type nudgeCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *nudgeCounts) MailboxNudge(result string) { c.mu.Lock(); defer c.mu.Unlock(); c.n[result]++ }
func (c *nudgeCounts) get(result string) int      { c.mu.Lock(); defer c.mu.Unlock(); return c.n[result] }

// A nudge lands in the member's reply list (the "-" principal when member authentication is
// off), bounded and expiring like replies.
func TestNudgerPushesToTheReplyList(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client()
	counts := &nudgeCounts{n: map[string]int{}}
	n := mailbox.NewNudger(rdb, mailbox.NudgerOptions{KeyPrefix: "rsc", MaxReplies: 2, ReplyTTL: 30_000, Metrics: counts})
	defer n.Stop()
	for range 3 {
		n.Nudge("orders", "billing", "m0", "")
	}
	n.Nudge("orders", "billing", "m1", "alice")
	ctx := context.Background()
	key := protocol.MailboxReplyKey("rsc", "-", "orders", "billing", "m0")
	waitFor(t, "three nudges sent", func() bool { return counts.get(mailbox.NudgeSent) == 4 })
	got, err := rdb.LRange(ctx, key, 0, -1).Result()
	if err != nil || len(got) != 2 || got[0] != mailbox.NudgeElement {
		t.Fatalf("reply list of m0 holds %q (%v), want 2 nudges (LTRIM to MaxReplies)", got, err)
	}
	if ttl := rdb.PTTL(ctx, key).Val(); ttl <= 0 || ttl > 30*time.Second {
		t.Fatalf("reply list TTL %v, want (0, 30s]", ttl)
	}
	if l := rdb.LLen(ctx, protocol.MailboxReplyKey("rsc", "alice", "orders", "billing", "m1")).Val(); l != 1 {
		t.Fatalf("alice's member m1 has %d elements, want its nudge", l)
	}
}

// Nudge never blocks: with its queue full (Redis not answering) a nudge is dropped and counted.
func TestNudgerDropsWhenItsQueueIsFull(t *testing.T) {
	srv := redistest.Start(t)
	counts := &nudgeCounts{n: map[string]int{}}
	n := mailbox.NewNudger(srv.Client(), mailbox.NudgerOptions{Queue: 1, Workers: 1, Metrics: counts})
	n.Stop() // no worker drains the queue now
	done := make(chan struct{})
	go func() {
		for range 3 {
			n.Nudge("orders", "billing", "m0", "")
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Nudge blocked on a full queue")
	}
	if counts.get(mailbox.NudgeDropped) != 2 {
		t.Fatalf("dropped %d nudges, want 2 (one fits the queue)", counts.get(mailbox.NudgeDropped))
	}
}
