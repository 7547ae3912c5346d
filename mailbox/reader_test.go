package mailbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/mailbox"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// fakeMembers answers OK, or err when set; it records the calls.
type fakeMembers struct {
	mu    sync.Mutex
	err   error
	calls []protocol.HeartbeatRequest
}

func (f *fakeMembers) Heartbeat(_ context.Context, p, g, member string, req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, req)
	if f.err != nil {
		return protocol.HeartbeatResponse{}, f.err
	}
	return protocol.HeartbeatResponse{ResponseTo: req.RequestID, Status: protocol.StatusOK, MemberID: member, MemberEpoch: 1}, nil
}

func (f *fakeMembers) ProducerRouting(context.Context, string, string) (protocol.ProducerRouting, error) {
	return protocol.ProducerRouting{}, nil
}

func (f *fakeMembers) called() int { f.mu.Lock(); defer f.mu.Unlock(); return len(f.calls) }

// counts is a mailbox.Metrics recording results.
type counts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counts) MailboxRequest(result, _ string, _ time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[result]++
}

func (c *counts) get(result string) int { c.mu.Lock(); defer c.mu.Unlock(); return c.n[result] }

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type fixture struct {
	srv     *redistest.Server
	rdb     *redis.Client
	members *fakeMembers
	metrics *counts
	alice   mbClient
	carol   mbClient
}

func startReader(t *testing.T) *fixture { return startReaderBlocking(t, 50*time.Millisecond) }

func startReaderBlocking(t *testing.T, block time.Duration) *fixture {
	srv := redistest.Start(t)
	rdb := srv.Client()
	f := &fixture{srv: srv, rdb: rdb, members: &fakeMembers{}, metrics: &counts{n: map[string]int{}}}
	auth := config.Default().Auth
	auth.Users = []config.User{
		{Username: "alice", Password: "a", Roles: []string{config.RoleMember}},
		{Username: "carol", Password: "c", Roles: []string{config.RoleMember}, Groups: []string{"billing"}},
	}
	r, err := mailbox.New(rdb, f.members, mailbox.Options{
		KeyPrefix: "rsc", NodeID: "n1", Principals: mailbox.DefaultPrincipals(auth), Auth: auth,
		BodyLimit: 2048, ReplyTTL: 5 * time.Second, Block: block, Batch: 10, Metrics: f.metrics,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Stop(context.Background()) })
	f.alice = mbClient{rdb: rdb, prefix: "rsc", principal: "alice"}
	f.carol = mbClient{rdb: rdb, prefix: "rsc", principal: "carol"}
	return f
}

func join(id, requestID string) protocol.HeartbeatRequest {
	return protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: requestID, MemberID: id, MemberName: "t",
		RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 1, AvailableConcurrency: 1},
		OwnedShards:             []protocol.ShardID{}, RevokingShards: []protocol.RevokingShard{}}
}

func TestReaderAnswersLikeHTTP(t *testing.T) {
	f := startReader(t)

	r := f.alice.heartbeat(t, "orders", "g", "m1", join("m1", "r1"))
	if r.Status != http.StatusOK || r.Kind != protocol.MailboxKindReply || r.V != 1 {
		t.Fatalf("join: reply %+v, want v 1, kind reply, status 200", r)
	}
	var resp protocol.HeartbeatResponse
	if err := json.Unmarshal(r.Body, &resp); err != nil || resp.Status != protocol.StatusOK || resp.ResponseTo != "r1" {
		t.Fatalf("join: body %s (%v), want the OK heartbeat response to r1", r.Body, err)
	}
	if got := f.members.calls[0].Principal; got != "alice" {
		t.Fatalf("the Service was told principal %q, want alice (the key's principal)", got)
	}

	// A body the decoder refuses: the HTTP 400 body, correlated by the requestId it carries.
	bad := f.alice.send(t, "m1", "r2", entry("orders", "g", "m1", []byte(`{"requestId":"r2","protocolVersion":"one"}`), 5*time.Second), 5*time.Second)
	if bad == nil || bad.Status != http.StatusBadRequest || errorBody(t, *bad).ErrorCode != protocol.CodeMalformedRequest || errorBody(t, *bad).Status != "BAD_REQUEST" {
		t.Fatalf("malformed body: reply %+v, want 400 MALFORMED_REQUEST", bad)
	}
	// Checks shared with api: a shard listed twice.
	dup := join("m1", "r3")
	dup.OwnedShards = protocol.ShardIDs([]int{1, 1})
	if r := f.alice.heartbeat(t, "orders", "g", "m1", dup); r.Status != 400 || errorBody(t, r).Message != "ownedShards: shard 1 is listed twice" {
		t.Fatalf("duplicate shard: reply %+v %s, want 400 naming ownedShards", r, r.Body)
	}
	// A bad name, an unknown op, a body over http.body-limit.
	if r := f.alice.heartbeat(t, "orders", "", "m1", join("m1", "r4")); r.Status != 400 || errorBody(t, r).ErrorCode != protocol.CodeInvalidArgument {
		t.Fatalf("empty group: reply %+v %s, want 400 INVALID_ARGUMENT", r, r.Body)
	}
	body, _ := json.Marshal(join("m1", "r5"))
	op := entry("orders", "g", "m1", body, 5*time.Second)
	op[protocol.MailboxFieldOp] = "delete"
	if r := f.alice.send(t, "m1", "r5", op, 5*time.Second); r == nil || r.Status != 400 {
		t.Fatalf("unknown op: reply %+v, want 400", r)
	}
	big := join("m1", "r6")
	big.MemberName = string(make([]byte, 3000))
	body, _ = json.Marshal(big)
	if r := f.alice.send(t, "m1", "r6", entry("orders", "g", "m1", body, 5*time.Second), 5*time.Second); r == nil || r.Status != 400 || errorBody(t, *r).ErrorCode != protocol.CodePayloadTooLarge {
		t.Fatalf("oversized body: reply %+v, want 400 PAYLOAD_TOO_LARGE", r)
	}
	if n := f.members.called(); n != 1 {
		t.Fatalf("the Service was called %d times; refused requests must never reach it", n)
	}
	waitFor(t, "5 rejected requests are counted", func() bool { return f.metrics.get(mailbox.ResultRejected) == 5 })
}

func TestReaderRefusesLikeHTTP(t *testing.T) {
	f := startReader(t)
	// carol is scoped to consumer group billing.
	r := f.carol.heartbeat(t, "orders", "shipping", "c1", join("c1", "s1"))
	if r.Status != http.StatusForbidden || errorBody(t, r).Message != "user carol is scoped to consumer groups [billing] (auth.users[].groups)" {
		t.Fatalf("out of scope: reply %+v %s, want 403 naming the scope", r, r.Body)
	}
	if r := f.carol.heartbeat(t, "orders", "billing", "c1", join("c1", "s2")); r.Status != http.StatusOK {
		t.Fatalf("in scope: reply %+v %s, want 200", r, r.Body)
	}
	// Service errors map as api maps them.
	f.members.mu.Lock()
	f.members.err = fmt.Errorf("group orders/g: %w", coordinator.ErrMemberOwnedByAnotherPrincipal)
	f.members.mu.Unlock()
	r = f.alice.heartbeat(t, "orders", "g", "c1", join("c1", "s3"))
	if r.Status != http.StatusForbidden || errorBody(t, r).ErrorCode != protocol.CodeMemberOwnedByAnotherPrincipal {
		t.Fatalf("owned by another principal: reply %+v %s, want 403 MEMBER_OWNED_BY_ANOTHER_PRINCIPAL", r, r.Body)
	}
	f.members.mu.Lock()
	f.members.err = coordinator.ErrUnavailable
	f.members.mu.Unlock()
	r = f.alice.heartbeat(t, "orders", "g", "c1", join("c1", "s4"))
	if want := (coordinator.Answer{Status: 503, Code: protocol.CodeStoreUnavailable, Message: "the coordinator store is unavailable; retry"}).Body(); r.Status != 503 || errorBody(t, r) != want {
		t.Fatalf("store unavailable: reply %+v %s, want 503 %+v", r, r.Body, want)
	}
	// Counted once the reply is pushed.
	waitFor(t, "2 forbidden and 1 error are counted", func() bool {
		return f.metrics.get(mailbox.ResultForbidden) == 2 && f.metrics.get(mailbox.ResultError) == 1
	})
}

func TestReaderDropsExpiredRequests(t *testing.T) {
	f := startReader(t)
	body, _ := json.Marshal(join("m1", "old"))
	// An entry whose id says it was added 10s ago with a 1s timeout: its
	// member gave up long ago.
	id := fmt.Sprintf("%d-0", time.Now().Add(-10*time.Second).UnixMilli())
	if err := f.rdb.XAdd(context.Background(), &redis.XAddArgs{Stream: protocol.MailboxRequestsKey("rsc", "alice"), ID: id,
		Values: entry("orders", "g", "m1", body, time.Second)}).Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the expired request is counted", func() bool { return f.metrics.get(mailbox.ResultExpired) == 1 })
	if n := f.members.called(); n != 0 {
		t.Fatalf("an expired request reached the Service (%d calls)", n)
	}
	if n := f.rdb.Exists(context.Background(), protocol.MailboxReplyKey("rsc", "alice", "orders", "g", "m1")).Val(); n != 0 {
		t.Fatal("an expired request was answered")
	}
}

func TestReaderBoundsAFlood(t *testing.T) {
	f := startReader(t)
	key := protocol.MailboxRequestsKey("rsc", "alice")
	const flood, maxLen = 5000, 100
	pipe := f.rdb.Pipeline()
	for i := 0; i < flood; i++ {
		// No member field: nobody to answer; entries are only counted.
		pipe.XAdd(context.Background(), &redis.XAddArgs{Stream: key, MaxLen: maxLen, Approx: true, Values: map[string]any{"junk": i}})
	}
	if _, err := pipe.Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the reader has read the flood's tail", func() bool { return f.metrics.get(mailbox.ResultRejected) >= maxLen })
	if n := f.rdb.XLen(context.Background(), key).Val(); n > 2*maxLen+100 {
		t.Fatalf("request stream holds %d entries after a flood of %d with MAXLEN ~ %d", n, flood, maxLen)
	}
	if n := f.members.called(); n != 0 {
		t.Fatalf("bogus entries reached the Service (%d calls)", n)
	}
	keys := f.rdb.Keys(context.Background(), "rsc:{mb:alice}:reply:*").Val()
	if len(keys) != 0 {
		t.Fatalf("bogus entries created reply lists %v", keys)
	}
}

// The budget: at most 4 Redis commands per mailbox heartbeat end to
// end (XADD, a share of XREADGROUP, the reply script, BLPOP). Commands a
// script runs (LPUSH, LTRIM, PEXPIRE) are not separate round trips.
func TestRedisCommandsPerHeartbeat(t *testing.T) {
	f := startReaderBlocking(t, 2*time.Second)
	f.alice.heartbeat(t, "orders", "g", "m1", join("m1", "warm")) // loads the script
	f.srv.ResetStats()
	const n = 200
	for i := 0; i < n; i++ {
		f.alice.heartbeat(t, "orders", "g", "m1", join("m1", fmt.Sprintf("c%d", i)))
	}
	calls := f.srv.CommandCalls()
	var total int64
	for cmd, c := range calls {
		switch cmd {
		case "lpush", "ltrim", "pexpire", "info", "config|resetstat":
			continue // inside the reply script, or the measurement itself
		}
		total += c
	}
	perBeat := float64(total) / n
	t.Logf("Redis commands per mailbox heartbeat: %.2f (%v)", perBeat, calls)
	if perBeat > 4.1 {
		t.Fatalf("%.2f Redis commands per heartbeat, the budget is 4: %v", perBeat, calls)
	}
}
