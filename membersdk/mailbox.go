package membersdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/redisstream/coordinator/membersdk/internal/mailbox"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// mailboxWhere prefixes the request stream key where errors and events name
// the coordinator of a mailbox member (its URL over HTTP).
const mailboxWhere = "redis-mailbox:"

// mailboxHeartbeater sends heartbeats through the Redis mailbox
// (TransportRedis): the body HTTP would POST is XADDed to the principal's
// request stream, and the reply is read from the member's reply list.
type mailboxHeartbeater struct {
	mb      *mailbox.Client
	timeout time.Duration // RequestTimeout
}

func newMailboxHeartbeater(cfg *ConsumerConfig) *mailboxHeartbeater {
	return &mailboxHeartbeater{
		mb: mailbox.New(mailbox.Config{
			Redis: cfg.Redis, KeyPrefix: cfg.MailboxKeyPrefix, Principal: cfg.MailboxPrincipal,
			Stream: cfg.StreamPrefix, Group: cfg.ConsumerGroup, Member: cfg.MemberID,
			MaxRequests: protocol.DefaultMailboxMaxRequests, Logger: cfg.Logger,
		}),
		timeout: cfg.RequestTimeout,
	}
}

// heartbeat waits for the reply at most RequestTimeout, and at most round
// (the heartbeat interval) when set, as one HTTP request to one URL would.
func (m *mailboxHeartbeater) heartbeat(ctx context.Context, round time.Duration, req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, string, error) {
	var resp protocol.HeartbeatResponse
	body, err := json.Marshal(req) // the bytes the HTTP path sends (coordClient.doWithin)
	if err != nil {
		return resp, "", fmt.Errorf("membersdk: encode request: %w", err)
	}
	wait := m.timeout
	if round > 0 {
		wait = min(wait, round)
	}
	// The reader's BLPOP outlasts the gap to the next heartbeat's reply, so
	// at steady state it never times out: one blocking read per heartbeat.
	m.mb.SetIdleBlock(max(round, m.timeout) + time.Second)
	where := m.where()
	rep, err := m.mb.Send(ctx, req.RequestID, body, wait)
	switch {
	case errors.Is(err, mailbox.ErrRefused):
		return resp, where, &AuthError{URL: where, StatusCode: http.StatusForbidden, Body: protocol.ErrorBody{
			Status: "FORBIDDEN", ErrorCode: protocol.CodeForbidden,
			Message: err.Error() + ": grant this Redis user the mailbox ACL rules of docs/PROTOCOL.md (\"Redis mailbox\")",
		}}
	case err != nil:
		return resp, "", fmt.Errorf("membersdk: heartbeat through the Redis mailbox: %w", err)
	}
	if rep.Status < 200 || rep.Status > 299 {
		var eb protocol.ErrorBody
		_ = json.Unmarshal(rep.Body, &eb)
		if rep.Status == http.StatusUnauthorized || rep.Status == http.StatusForbidden {
			return resp, where, &AuthError{URL: where, StatusCode: rep.Status, Body: eb}
		}
		return resp, "", &HTTPError{URL: where, StatusCode: rep.Status, Body: eb}
	}
	if err := json.Unmarshal(rep.Body, &resp); err != nil {
		return resp, "", fmt.Errorf("membersdk: decode the reply on %s: %w", m.mb.ReplyKey(), err)
	}
	return resp, where, nil
}

func (m *mailboxHeartbeater) where() string           { return mailboxWhere + m.mb.RequestsKey() }
func (m *mailboxHeartbeater) nudges() <-chan struct{} { return m.mb.Nudges() }
func (m *mailboxHeartbeater) close()                  { m.mb.Close() }
