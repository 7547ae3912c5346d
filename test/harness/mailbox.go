package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Mailbox is a Transport written from docs/PROTOCOL.md ("Redis mailbox")
// alone, as a client in another language would be: the key names, entry
// fields and reply framing are spelled out here as the text gives them
// (not taken from membersdk), so a test over it also checks that the
// documented protocol is the one the coordinator speaks.
type Mailbox struct {
	RDB *redis.Client
	// KeyPrefix is the coordinator's store.key-prefix ("rsc" when empty).
	KeyPrefix string
	// Principal is the auth user the member speaks for ("-" when empty:
	// the coordinator runs without member authentication).
	Principal string
	// Timeout is how long a request waits for its reply (5s when zero).
	Timeout time.Duration
}

// ErrNoReply is returned by Mailbox.Heartbeat when no reply came within
// the timeout: a transport error, as an HTTP timeout.
var ErrNoReply = errors.New("harness: no mailbox reply within the timeout")

// Name is "redis".
func (mb *Mailbox) Name() string { return "redis" }

// Heartbeat XADDs one request entry and BLPOPs the member's reply list
// until the element answering the body's requestId arrives.
func (mb *Mailbox) Heartbeat(prefix, group, member string, body []byte) (int, []byte, error) {
	timeout := mb.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	kp, principal := mb.KeyPrefix, mb.Principal
	if kp == "" {
		kp = "rsc"
	}
	if principal == "" {
		principal = "-"
	}
	tag := kp + ":{mb:" + escapeKeyName(principal) + "}"
	replyKey := tag + ":reply:" + escapeKeyName(prefix) + "|" + escapeKeyName(group) + "|" + escapeKeyName(member)
	ctx := context.Background()
	deadline := time.Now().Add(timeout)
	err := mb.RDB.Do(ctx, "XADD", tag+":requests", "MAXLEN", "~", "10000", "*",
		"v", "1", "stream", prefix, "group", group, "member", member, "op", "heartbeat",
		"body", string(body), "timeout", strconv.FormatInt(timeout.Milliseconds(), 10)).Err()
	if err != nil {
		return 0, nil, fmt.Errorf("XADD: %w", err)
	}
	want := requestIDOf(body)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return 0, nil, ErrNoReply
		}
		res, err := mb.RDB.BLPop(ctx, left, replyKey).Result()
		if errors.Is(err, redis.Nil) {
			return 0, nil, ErrNoReply
		}
		if err != nil {
			return 0, nil, fmt.Errorf("BLPOP %s: %w", replyKey, err)
		}
		var el struct {
			V         int             `json:"v"`
			Kind      string          `json:"kind"`
			RequestID string          `json:"requestId"`
			Status    int             `json:"status"`
			Body      json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal([]byte(res[1]), &el); err != nil {
			return 0, nil, fmt.Errorf("reply element %q is not JSON: %w", res[1], err)
		}
		if el.V != 1 {
			return 0, nil, fmt.Errorf("reply element %q: v %d, want 1", res[1], el.V)
		}
		if el.Kind == "reply" && el.RequestID == want { // other kinds and late answers: skip
			return el.Status, el.Body, nil
		}
	}
}

// requestIDOf is the body's requestId, "" when the body has none that can
// be read (the coordinator answers such a request with requestId "").
func requestIDOf(body []byte) string {
	var b struct {
		RequestID string `json:"requestId"`
	}
	_ = json.Unmarshal(body, &b)
	return b.RequestID
}

// escapeKeyName is the documented escape for names inside keys: every byte
// outside [A-Za-z0-9._:-] becomes %XX (upper-case hex).
func escapeKeyName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("._:-", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
