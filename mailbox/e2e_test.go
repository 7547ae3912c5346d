package mailbox_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// A real coordinator process with the mailbox on, its users, and an admin
// HTTP client.
type e2e struct {
	srv   *redistest.Server
	admin *harness.Client
	coord *harness.Coordinator
}

func startE2E(t *testing.T) *e2e { return startE2EWith(t, nil) }

// startE2EWith is startE2E with extra RSC_* settings.
func startE2EWith(t *testing.T, extra map[string]string) *e2e {
	if testing.Short() {
		t.Skip("starts a coordinator process")
	}
	srv := redistest.Start(t)
	users, _ := json.Marshal([]map[string]any{
		{"username": "admin", "password": "admin-pw", "roles": []string{"ADMIN"}},
		{"username": "alice", "password": "alice-pw", "roles": []string{"MEMBER"}},
		{"username": "bob", "password": "bob-pw", "roles": []string{"MEMBER"}},
		{"username": "carol", "password": "carol-pw", "roles": []string{"MEMBER"}, "groups": []string{"billing"}},
	})
	env := map[string]string{
		"RSC_AUTH_USERS":        string(users),
		"RSC_AUTH_TOKEN_SECRET": "0123456789abcdef0123456789abcdef",
		"RSC_MAILBOX_ENABLED":   "true",
		"RSC_MAILBOX_BLOCK":     "200ms",
	}
	for k, v := range extra {
		env[k] = v
	}
	c := harness.StartCoordinator(t, harness.Options{RedisAddr: srv.Addr(), Env: env})
	admin := harness.NewClient(c.URL())
	admin.User, admin.Password = "admin", "admin-pw"
	return &e2e{srv: srv, admin: admin, coord: c}
}

func (e *e2e) member(principal string) mbClient {
	return mbClient{rdb: e.srv.Client(), prefix: "rsc", principal: principal}
}

// mbMember is a harness.Member (a well-behaved simulated member) whose
// heartbeats go through the mailbox.
type mbMember struct {
	*harness.Member
	mb mbClient
}

func (m mbMember) beat(t *testing.T) protocol.HeartbeatResponse {
	t.Helper()
	r := m.mb.heartbeat(t, m.Prefix, m.Group, m.ID, m.Request())
	if r.Status != http.StatusOK {
		t.Fatalf("%s: reply status %d: %s", m.ID, r.Status, r.Body)
	}
	var resp protocol.HeartbeatResponse
	if err := json.Unmarshal(r.Body, &resp); err != nil {
		t.Fatalf("%s: reply body %s: %v", m.ID, r.Body, err)
	}
	m.Apply(resp)
	return resp
}

func assigned(r protocol.HeartbeatResponse) []int {
	var out []int
	for _, s := range r.Assignment.AssignedShards {
		out = append(out, s.ShardIndex)
	}
	return out
}

// Join, hand-off with revoke-before-assign, leave, and the refusals, all
// through the mailbox of a real coordinator.
func TestMailboxProtocolWalkthrough(t *testing.T) {
	e := startE2E(t)
	e.admin.CreateStream(t, "orders", 4)
	a := mbMember{harness.NewMember(nil, "orders", "billing", "a"), e.member("alice")}
	b := mbMember{harness.NewMember(nil, "orders", "billing", "b"), e.member("alice")}

	// Join: OK with the whole assignment.
	for i := 0; len(a.Shards()) < 4; i++ {
		if i == 20 {
			t.Fatalf("a owns %v after 20 heartbeats, want all 4 shards", a.Shards())
		}
		a.beat(t)
	}
	// Hand-off: b joins; no shard is assigned to b while a still reads it.
	for i := 0; len(a.Shards()) != 2 || len(b.Shards()) != 2; i++ {
		if i == 40 {
			t.Fatalf("no even split after 40 rounds: a %v, b %v", a.Shards(), b.Shards())
		}
		rb := b.beat(t)
		for _, s := range assigned(rb) {
			if a.Reading(s) {
				t.Fatalf("shard %d assigned to b while a still reads it (revoke-before-assign broken)", s)
			}
		}
		a.beat(t)
		a.Release() // a finished draining what it was told to revoke
	}
	// Leave: memberEpoch -1 is OK; b takes the shards over.
	leave := b.Request()
	leave.MemberEpoch = -1
	if r := b.mb.heartbeat(t, "orders", "billing", "b", leave); r.Status != 200 || !strings.Contains(string(r.Body), `"status":"OK"`) {
		t.Fatalf("leave: reply %d %s, want 200 OK", r.Status, r.Body)
	}

	// A member id alice joined, spoken for by bob: 403, nothing changes.
	r := e.member("bob").heartbeat(t, "orders", "billing", "a", a.Request())
	if r.Status != http.StatusForbidden || errorBody(t, r).ErrorCode != protocol.CodeMemberOwnedByAnotherPrincipal {
		t.Fatalf("bob speaking for alice's member: reply %d %s, want 403 MEMBER_OWNED_BY_ANOTHER_PRINCIPAL", r.Status, r.Body)
	}
	// carol is scoped to group billing.
	r = e.member("carol").heartbeat(t, "orders", "shipping", "c", harness.NewMember(nil, "orders", "shipping", "c").Request())
	if r.Status != http.StatusForbidden || errorBody(t, r).Message != "user carol is scoped to consumer groups [billing] (auth.users[].groups)" {
		t.Fatalf("carol outside her scope: reply %d %s, want 403 naming auth.users[].groups", r.Status, r.Body)
	}
	// The same request over HTTP gets the same answer.
	hc := harness.NewClient(e.coord.URL())
	hc.User, hc.Password = "carol", "carol-pw"
	status, raw, err := hc.Do("POST", harness.HeartbeatPath("orders", "shipping", "c"), harness.NewMember(nil, "orders", "shipping", "c").Request(), nil)
	if err != nil || status != r.Status || string(raw) != string(r.Body) {
		t.Fatalf("HTTP answers %d %s (%v); the mailbox answered %d %s", status, raw, err, r.Status, r.Body)
	}
	// A body the decoder refuses: the HTTP 400 body.
	bad := e.member("alice").send(t, "a", "x1", entry("orders", "billing", "a", []byte(`{"requestId":"x1","memberEpoch":"x"}`), 5*time.Second), 5*time.Second)
	if bad == nil || bad.Status != 400 || errorBody(t, *bad).ErrorCode != protocol.CodeMalformedRequest {
		t.Fatalf("malformed body: reply %+v, want 400 MALFORMED_REQUEST", bad)
	}
	waitMetric(t, e.admin, `rsc_mailbox_requests_total{result="forbidden"}`, 2)
	waitMetric(t, e.admin, `rsc_mailbox_requests_total{result="rejected"}`, 1)
}

// waitMetric waits until the coordinator's /metrics shows series >= want.
func waitMetric(t *testing.T, c *harness.Client, series string, want float64) {
	t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(series) + ` ([0-9.e+]+)`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, raw, err := c.Do("GET", "/metrics", nil, nil)
		if err == nil {
			if m := re.FindSubmatch(raw); m != nil {
				if v, _ := strconv.ParseFloat(string(m[1]), 64); v >= want {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not reach %v within 10s", series, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The Redis ACL rules of docs/PROTOCOL.md ("Redis mailbox") let a member
// user write only its own request stream and pop only its own reply lists:
// Redis itself refuses the rest with NOPERM. With those rules alone a
// member heartbeats end to end.
func TestMailboxACLConfinesAPrincipal(t *testing.T) {
	e := startE2E(t)
	e.admin.CreateStream(t, "orders", 1)
	ctx := context.Background()
	root := e.srv.Client()
	// The documented rules, for principal alice and the default prefix rsc.
	if err := root.Do(ctx, "ACL", "SETUSER", "alice", "reset", "on", ">alice-redis-pw",
		"%W~rsc:{mb:alice}:requests", "%RW~rsc:{mb:alice}:reply:*", "resetchannels",
		"-@all", "+xadd", "+blpop", "+ping", "+hello", "+auth").Err(); err != nil {
		t.Fatalf("ACL SETUSER: %v", err)
	}
	alice := e.srv.NewClient(&redis.Options{Username: "alice", Password: "alice-redis-pw"})
	defer alice.Close()

	m := mbMember{harness.NewMember(nil, "orders", "billing", "a"), mbClient{rdb: alice, prefix: "rsc", principal: "alice"}}
	if r := m.beat(t); r.Status != protocol.StatusOK && r.Status != protocol.StatusRetry {
		t.Fatalf("heartbeat with the documented ACL: %s", r.Status)
	}

	body, _ := json.Marshal(harness.NewMember(nil, "orders", "billing", "x").Request())
	err := alice.XAdd(ctx, &redis.XAddArgs{Stream: "rsc:{mb:bob}:requests", Values: entry("orders", "billing", "x", body, time.Second)}).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "NOPERM") {
		t.Fatalf("XADD to bob's request stream as alice: %v, want NOPERM", err)
	}
	err = alice.BLPop(ctx, time.Second, "rsc:{mb:bob}:reply:orders|g|b").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "NOPERM") {
		t.Fatalf("BLPOP of bob's reply list as alice: %v, want NOPERM", err)
	}
	for _, cmd := range [][]any{
		{"XRANGE", "rsc:{mb:alice}:requests", "-", "+"},        // read the requests (others' bodies)
		{"LPUSH", "rsc:{mb:alice}:reply:orders|g|a", "forged"}, // forge a reply
		{"DEL", "rsc:{mb:alice}:requests"},                     // drop the stream
		{"XGROUP", "DESTROY", "rsc:{mb:alice}:requests", "coordinator"},
	} {
		if err := alice.Do(ctx, cmd...).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOPERM") {
			t.Fatalf("%v as alice: %v, want NOPERM", cmd, err)
		}
	}
}
