package mailbox_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// When a member leaves, the coordinator process nudges the mailbox member whose target takes
// the freed shards: a nudge lands in its reply list at once, and its heartbeat right after is
// given the shards, long before its next ordinary heartbeat (10 s interval here). Monitoring
// shows each member's transport.
func TestMailboxMemberIsNudgedAfterALeave(t *testing.T) {
	const interval = 10 * time.Second
	e := startE2EWith(t, map[string]string{
		"RSC_COORDINATION_HEARTBEAT_INTERVAL": interval.String(),
		"RSC_COORDINATION_MEMBER_LEASE_TTL":   "30s",
	})
	e.admin.CreateStream(t, "orders", 4)
	a := mbMember{harness.NewMember(nil, "orders", "billing", "a"), e.member("alice")}
	b := mbMember{harness.NewMember(nil, "orders", "billing", "b"), e.member("alice")}
	for i := 0; len(a.Shards()) < 4; i++ {
		if i == 20 {
			t.Fatalf("a owns %v after 20 heartbeats, want all 4 shards", a.Shards())
		}
		a.beat(t)
	}
	for i := 0; len(a.Shards()) != 2 || len(b.Shards()) != 2; i++ {
		if i == 40 {
			t.Fatalf("no even split after 40 rounds: a %v, b %v", a.Shards(), b.Shards())
		}
		b.beat(t)
		a.beat(t)
		a.Release()
	}
	// An HTTP member of another group, for the monitoring check below.
	hc := harness.NewClient(e.coord.URL())
	hc.User, hc.Password = "bob", "bob-pw"
	h := harness.NewMember(hc, "orders", "shipping", "h")
	h.Beat(t)

	ctx := context.Background()
	aReplies := protocol.MailboxReplyKey("rsc", "alice", "orders", "billing", "a")
	if err := e.srv.Client().Del(ctx, aReplies).Err(); err != nil { // nothing older than the leave
		t.Fatal(err)
	}
	leave := b.Request()
	leave.MemberEpoch = -1
	left := time.Now()
	if r := b.mb.heartbeat(t, "orders", "billing", "b", leave); r.Status != 200 {
		t.Fatalf("leave: reply %d %s", r.Status, r.Body)
	}
	res, err := e.srv.Client().BLPop(ctx, 5*time.Second, aReplies).Result()
	if err != nil {
		t.Fatalf("no nudge in a's reply list within 5s of b's leave: %v", err)
	}
	var n protocol.MailboxReply
	if err := json.Unmarshal([]byte(res[1]), &n); err != nil || n.V != protocol.MailboxVersion || n.Kind != protocol.MailboxKindNudge {
		t.Fatalf("a's reply list got %s, want a version 1 nudge", res[1])
	}
	// Nudged, a heartbeats at once (as the SDK does) and is given b's shards.
	for i := 0; len(a.Shards()) < 4; i++ {
		if i == 10 {
			t.Fatalf("a owns %v after 10 heartbeats past the nudge, want all 4 shards", a.Shards())
		}
		a.beat(t)
	}
	if took := time.Since(left); took > interval/5 {
		t.Fatalf("a owned b's shards %v after the leave; the nudge should beat 0.2 of the %v interval", took, interval)
	}

	transports := map[string]string{}
	for _, g := range []string{"billing", "shipping"} {
		var ms protocol.MembersResponse
		e.admin.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/"+g+"/members", nil, &ms, 200)
		for _, m := range ms.Members {
			transports[m.MemberID] = m.Transport
		}
	}
	if transports["a"] != "redis" || transports["h"] != "http" {
		t.Fatalf("monitoring shows transports %v, want a: redis, h: http", transports)
	}
	waitMetric(t, e.admin, `rsc_mailbox_nudges_total{result="sent"}`, 1)
	waitMetric(t, e.admin, `rsc_heartbeats_total{status="OK",transport="redis"}`, 1)
	waitMetric(t, e.admin, `rsc_heartbeats_total{status="OK",transport="http"}`, 1)
}
