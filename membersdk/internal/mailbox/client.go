package mailbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Errors of Send, wrapped with the details.
var (
	// ErrNoReply: no reply with the request's requestId arrived within the
	// wait. The coordinator may be down, may not read this principal's
	// request stream (mailbox.enabled, mailbox.principals), or dropped the
	// request as expired; retry like an HTTP timeout.
	ErrNoReply = errors.New("mailbox: no reply")
	// ErrRefused: Redis refused a mailbox command for the client's Redis
	// user (NOPERM, NOAUTH, WRONGPASS): retrying will not help until the ACL
	// rules of docs/PROTOCOL.md ("Redis mailbox") are granted.
	ErrRefused = errors.New("mailbox: Redis refused the command")
	// ErrClosed: Send on a closed Client.
	ErrClosed = errors.New("mailbox: client closed")
)

// Config names one member's mailbox.
type Config struct {
	Redis redis.UniversalClient
	// KeyPrefix is the coordinator's store.key-prefix; Principal the auth
	// user the member speaks for (protocol.MailboxNoAuthPrincipal without
	// member authentication).
	KeyPrefix, Principal  string
	Stream, Group, Member string
	// MaxRequests trims the request stream on every XADD (MAXLEN ~).
	MaxRequests int64
	Logger      *slog.Logger
}

// Client is one member's mailbox. Send may be called from several
// goroutines; replies are matched to them by requestId.
type Client struct {
	rc          redis.UniversalClient
	requests    string
	reply       string
	stream      string
	group       string
	member      string
	maxRequests int64
	log         *slog.Logger

	nudge     chan struct{}
	idleBlock atomic.Int64 // BLPOP timeout of the reader, nanoseconds

	mu      sync.Mutex
	waiting map[string]chan protocol.MailboxReply // requestId → its Send
	readErr error                                 // the reader's last failure; nil after a read worked

	start  sync.Once
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
}

// New returns the mailbox of cfg.Member. Its reader starts with the first
// Send and runs until Close.
func New(cfg Config) *Client {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	maxReq := cfg.MaxRequests
	if maxReq <= 0 {
		maxReq = protocol.DefaultMailboxMaxRequests
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		rc:          cfg.Redis,
		requests:    protocol.MailboxRequestsKey(cfg.KeyPrefix, cfg.Principal),
		reply:       protocol.MailboxReplyKey(cfg.KeyPrefix, cfg.Principal, cfg.Stream, cfg.Group, cfg.Member),
		stream:      cfg.Stream,
		group:       cfg.Group,
		member:      cfg.Member,
		maxRequests: maxReq,
		log:         log,
		nudge:       make(chan struct{}, 1),
		waiting:     map[string]chan protocol.MailboxReply{},
		ctx:         ctx,
		cancel:      cancel,
	}
	c.idleBlock.Store(int64(5 * time.Second))
	return c
}

// RequestsKey is the principal's request stream.
func (c *Client) RequestsKey() string { return c.requests }

// ReplyKey is the member's reply list.
func (c *Client) ReplyKey() string { return c.reply }

// Nudges yields once (coalesced) for every nudge the coordinator pushed:
// the member should heartbeat at once.
func (c *Client) Nudges() <-chan struct{} { return c.nudge }

// SetIdleBlock sets how long one BLPOP of the reader blocks (at least 1s).
// Make it longer than the gap between two heartbeats, so that at steady
// state every BLPOP returns a reply instead of timing out: one blocking read
// per heartbeat.
func (c *Client) SetIdleBlock(d time.Duration) {
	c.idleBlock.Store(int64(max(d, time.Second)))
}

// Close stops the reader. It does not wait for a BLPOP in flight: that one
// ends within its block time (or when the Redis client is closed), and
// whatever it pops is dropped — so a new Client for the same member in the
// same process may lose one reply to it (its Send times out and is retried).
func (c *Client) Close() { c.cancel() }

// Send XADDs one heartbeat request (body: the exact HTTP request body) and
// waits up to wait for the reply carrying requestID; replies to other
// requests are dropped. The wait counts from before the XADD and is sent as
// the entry's timeout, so the coordinator drops the request once nobody
// waits for it.
func (c *Client) Send(ctx context.Context, requestID string, body []byte, wait time.Duration) (protocol.MailboxReply, error) {
	if c.ctx.Err() != nil {
		return protocol.MailboxReply{}, ErrClosed
	}
	if wait <= 0 {
		return protocol.MailboxReply{}, fmt.Errorf("mailbox: wait %s must be positive", wait)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	ch := make(chan protocol.MailboxReply, 1)
	c.mu.Lock()
	c.waiting[requestID] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, requestID)
		c.mu.Unlock()
	}()
	c.start.Do(func() { go c.read() })

	err := c.rc.XAdd(ctx, &redis.XAddArgs{
		Stream: c.requests, MaxLen: c.maxRequests, Approx: true,
		Values: []any{
			protocol.MailboxFieldVersion, strconv.Itoa(protocol.MailboxVersion),
			protocol.MailboxFieldStream, c.stream,
			protocol.MailboxFieldGroup, c.group,
			protocol.MailboxFieldMember, c.member,
			protocol.MailboxFieldOp, protocol.MailboxOpHeartbeat,
			protocol.MailboxFieldBody, body,
			protocol.MailboxFieldTimeout, strconv.FormatInt(wait.Milliseconds(), 10),
		},
	}).Err()
	if err != nil {
		if isRefused(err) {
			return protocol.MailboxReply{}, fmt.Errorf("%w: XADD %s: %v", ErrRefused, c.requests, err)
		}
		return protocol.MailboxReply{}, fmt.Errorf("mailbox: XADD %s: %w", c.requests, err)
	}
	select {
	case r := <-ch:
		return r, nil
	case <-timer.C:
		return protocol.MailboxReply{}, c.noReply(requestID, wait)
	case <-ctx.Done():
		return protocol.MailboxReply{}, ctx.Err()
	case <-c.ctx.Done():
		return protocol.MailboxReply{}, ErrClosed
	}
}

// noReply says why a Send got no answer, with the reader's last failure
// when reading the reply list fails.
func (c *Client) noReply(requestID string, wait time.Duration) error {
	c.mu.Lock()
	readErr := c.readErr
	c.mu.Unlock()
	if readErr != nil && isRefused(readErr) {
		return fmt.Errorf("%w: BLPOP %s: %v", ErrRefused, c.reply, readErr)
	}
	err := fmt.Errorf("%w to request %s (sent to %s) on %s within %s", ErrNoReply, requestID, c.requests, c.reply, wait)
	if readErr != nil {
		err = fmt.Errorf("%w; reading the reply list fails: %v", err, readErr)
	}
	return err
}

// isRefused reports an authentication or ACL refusal (NOPERM, NOAUTH,
// WRONGPASS): Redis will refuse the same command again. Other error replies
// (LOADING, READONLY, CLUSTERDOWN, …) pass with time and are retried.
func isRefused(err error) bool {
	var re redis.Error
	if !errors.As(err, &re) || errors.Is(err, redis.Nil) {
		return false
	}
	msg := re.Error()
	for _, code := range []string{"NOPERM", "NOAUTH", "WRONGPASS"} {
		if strings.HasPrefix(msg, code) {
			return true
		}
	}
	return false
}
