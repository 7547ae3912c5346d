package mailbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// mbClient is a mailbox member written from docs/PROTOCOL.md ("Redis
// mailbox"): XADD the request, BLPOP the reply list until the reply with
// the request's requestId arrives or the timeout passes.
type mbClient struct {
	rdb       *redis.Client
	prefix    string
	principal string
}

// entry is one request entry's fields.
func entry(stream, group, member string, body []byte, timeout time.Duration) map[string]any {
	return map[string]any{
		protocol.MailboxFieldVersion: strconv.Itoa(protocol.MailboxVersion),
		protocol.MailboxFieldStream:  stream,
		protocol.MailboxFieldGroup:   group,
		protocol.MailboxFieldMember:  member,
		protocol.MailboxFieldOp:      protocol.MailboxOpHeartbeat,
		protocol.MailboxFieldBody:    string(body),
		protocol.MailboxFieldTimeout: strconv.FormatInt(timeout.Milliseconds(), 10),
	}
}

// send XADDs fields and waits for the reply to requestID (nil: none in time).
func (c mbClient) send(t testing.TB, member, requestID string, fields map[string]any, timeout time.Duration) *protocol.MailboxReply {
	t.Helper()
	ctx := context.Background()
	err := c.rdb.XAdd(ctx, &redis.XAddArgs{Stream: protocol.MailboxRequestsKey(c.prefix, c.principal), MaxLen: protocol.DefaultMailboxMaxRequests, Approx: true, Values: fields}).Err()
	if err != nil {
		t.Fatalf("XADD as %s: %v", c.principal, err)
	}
	stream, _ := fields[protocol.MailboxFieldStream].(string)
	group, _ := fields[protocol.MailboxFieldGroup].(string)
	return c.await(t, protocol.MailboxReplyKey(c.prefix, c.principal, stream, group, member), requestID, timeout)
}

func (c mbClient) await(t testing.TB, key, requestID string, timeout time.Duration) *protocol.MailboxReply {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return nil
		}
		res, err := c.rdb.BLPop(context.Background(), left, key).Result()
		if errors.Is(err, redis.Nil) {
			return nil
		}
		if err != nil {
			t.Fatalf("BLPOP %s: %v", key, err)
		}
		var r protocol.MailboxReply
		if err := json.Unmarshal([]byte(res[1]), &r); err != nil {
			t.Fatalf("reply element %s is not JSON: %v", res[1], err)
		}
		if r.Kind == protocol.MailboxKindReply && r.RequestID == requestID {
			return &r
		}
	}
}

// heartbeat sends req (encoded as the HTTP body) and requires a reply.
func (c mbClient) heartbeat(t testing.TB, stream, group, member string, req protocol.HeartbeatRequest) protocol.MailboxReply {
	t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	r := c.send(t, member, req.RequestID, entry(stream, group, member, body, 5*time.Second), 5*time.Second)
	if r == nil {
		t.Fatalf("no reply to %s's heartbeat %s within 5s", member, req.RequestID)
	}
	return *r
}

// errorBody decodes a reply's body as an error body.
func errorBody(t testing.TB, r protocol.MailboxReply) protocol.ErrorBody {
	t.Helper()
	var b protocol.ErrorBody
	if err := json.Unmarshal(r.Body, &b); err != nil {
		t.Fatalf("reply body %s is not an error body: %v", r.Body, err)
	}
	return b
}
