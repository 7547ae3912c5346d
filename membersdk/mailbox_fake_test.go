package membersdk

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

// fakeMailbox is the coordinator's side of the Redis mailbox for one
// principal, in front of a fakeCoord: it reads the request stream as the
// design says (docs/PROTOCOL.md, "Redis mailbox"), answers each request with
// what the fakeCoord answers over HTTP, and pushes the reply element to the
// member's reply list (LPUSH + PEXPIRE in one transaction).
type fakeMailbox struct {
	t         *testing.T
	f         *fakeCoord
	rc        *redis.Client
	prefix    string
	principal string

	mu      sync.Mutex
	entries []map[string]any // every request entry read, in order
	silent  int              // answer none of the next silent requests
	status  int              // non-zero: answer every request with this status and an error body
	stale   bool             // push a reply to another request (status 403) right before each answer
	nudgeIn bool             // push a nudge right before the next answer (while the request is in flight)
}

func startFakeMailbox(t *testing.T, f *fakeCoord, rc *redis.Client, principal string) *fakeMailbox {
	t.Helper()
	own := redis.NewClient(&redis.Options{Addr: rc.Options().Addr})
	fm := &fakeMailbox{t: t, f: f, rc: own, prefix: protocol.DefaultMailboxKeyPrefix, principal: principal}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); fm.serve(ctx) }()
	t.Cleanup(func() { cancel(); <-done; _ = own.Close() })
	return fm
}

func (fm *fakeMailbox) set(change func(fm *fakeMailbox)) {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	change(fm)
}

func (fm *fakeMailbox) requestEntries() []map[string]any {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	return append([]map[string]any(nil), fm.entries...)
}

func (fm *fakeMailbox) serve(ctx context.Context) {
	key := protocol.MailboxRequestsKey(fm.prefix, fm.principal)
	last := "0"
	for ctx.Err() == nil {
		res, err := fm.rc.XRead(ctx, &redis.XReadArgs{Streams: []string{key, last}, Count: 100, Block: 50 * time.Millisecond}).Result()
		if err != nil {
			if !errors.Is(err, redis.Nil) && ctx.Err() == nil {
				fm.t.Errorf("fake mailbox: XREAD %s: %v", key, err)
				return
			}
			continue
		}
		for _, m := range res[0].Messages {
			last = m.ID
			fm.answer(ctx, m.Values)
		}
	}
}

func (fm *fakeMailbox) answer(ctx context.Context, v map[string]any) {
	fm.mu.Lock()
	fm.entries = append(fm.entries, v)
	silent, status, stale, nudgeIn := fm.silent > 0, fm.status, fm.stale, fm.nudgeIn
	if silent {
		fm.silent--
	}
	fm.nudgeIn = false
	fm.mu.Unlock()
	body, _ := v[protocol.MailboxFieldBody].(string)
	req, err := protocol.DecodeHeartbeat([]byte(body))
	if err != nil || v[protocol.MailboxFieldMember] != req.MemberID || v[protocol.MailboxFieldOp] != protocol.MailboxOpHeartbeat {
		fm.t.Errorf("fake mailbox: bad request entry %v: %v", v, err)
		return
	}
	if silent {
		return
	}
	rep := protocol.MailboxReply{V: protocol.MailboxVersion, Kind: protocol.MailboxKindReply, RequestID: req.RequestID, Status: 200}
	if status != 0 {
		rep.Status = status
		rep.Body, _ = json.Marshal(protocol.ErrorBody{Status: "FORBIDDEN", ErrorCode: protocol.CodeForbidden, Message: "principal may not speak for this group"})
	} else {
		fm.f.mu.Lock()
		resp := fm.f.handle(-1, req)
		fm.f.mu.Unlock()
		rep.Body, _ = json.Marshal(resp)
	}
	elems := []any{mustJSON(fm.t, rep)}
	if stale {
		// Pushed last, so popped first: a late answer to an earlier
		// request, which would stop the member if it were taken for this one.
		elems = append(elems, mustJSON(fm.t, protocol.MailboxReply{V: 1, Kind: protocol.MailboxKindReply, RequestID: "stale-" + req.RequestID, Status: 403,
			Body: json.RawMessage(`{"status":"FORBIDDEN","errorCode":"FORBIDDEN","message":"stale"}`)}))
	}
	if nudgeIn {
		elems = append(elems, `{"v":1,"kind":"nudge","reason":"shards-freed"}`)
	}
	fm.push(ctx, req.MemberID, elems...)
}

// push LPUSHes elements to a member's reply list and sets its expiry, as
// the coordinator does.
func (fm *fakeMailbox) push(ctx context.Context, member string, elems ...any) {
	key := protocol.MailboxReplyKey(fm.prefix, fm.principal, testStream, testGroup, member)
	_, err := fm.rc.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, key, elems...)
		p.PExpire(ctx, key, 30*time.Second)
		return nil
	})
	if err != nil && ctx.Err() == nil {
		fm.t.Errorf("fake mailbox: push to %s: %v", key, err)
	}
}

// nudge pushes {"v":1,"kind":"nudge"} to member.
func (fm *fakeMailbox) nudge(member string) {
	fm.push(context.Background(), member, `{"v":1,"kind":"nudge","reason":"shards-freed"}`)
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// mailboxConfig is testConfig switched to the Redis mailbox of principal.
func mailboxConfig(f *fakeCoord, rc *redis.Client, member, principal string, ev *events) ConsumerConfig {
	cfg := testConfig(f, rc, member, ev)
	cfg.CoordinatorURLs = nil
	cfg.Transport = TransportRedis
	cfg.MailboxPrincipal = principal
	return cfg
}

func entryTimeout(t *testing.T, v map[string]any) time.Duration {
	ms, err := strconv.Atoi(v[protocol.MailboxFieldTimeout].(string))
	require.NoError(t, err)
	return time.Duration(ms) * time.Millisecond
}
