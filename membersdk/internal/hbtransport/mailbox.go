package hbtransport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/redisstream/coordinator/membersdk/internal/coordclient"
	"github.com/redisstream/coordinator/membersdk/internal/mailbox"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// MailboxWhere prefixes the request stream key where errors and events name
// the coordinator of a mailbox member (its URL over HTTP).
const MailboxWhere = "redis-mailbox:"

// Mailbox sends heartbeats through the Redis mailbox
// (TransportRedis): the body HTTP would POST is XADDed to the principal's
// request stream, and the reply is read from the member's reply list.
type Mailbox struct {
	mb       *mailbox.Client
	timeout  time.Duration // RequestTimeout
	newError coordclient.StatusError
}

// NewMailbox returns the mailbox transport of one member: mb is its
// mailbox client, timeout the request timeout, newError builds the errors of
// non-2xx replies (as coordclient does for HTTP answers).
func NewMailbox(mb *mailbox.Client, timeout time.Duration, newError coordclient.StatusError) *Mailbox {
	return &Mailbox{mb: mb, timeout: timeout, newError: newError}
}

// Heartbeat waits for the reply at most RequestTimeout, and at most round
// (the heartbeat interval) when set, as one HTTP request to one URL would.
func (m *Mailbox) Heartbeat(ctx context.Context, round time.Duration, req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, string, error) {
	var resp protocol.HeartbeatResponse
	body, err := json.Marshal(req) // the bytes the HTTP path sends (coordclient.Client.DoWithin)
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
	where := m.Where()
	rep, err := m.mb.Send(ctx, req.RequestID, body, wait)
	switch {
	case errors.Is(err, mailbox.ErrRefused):
		return resp, where, m.newError(true, where, http.StatusForbidden, protocol.ErrorBody{
			Status: "FORBIDDEN", ErrorCode: protocol.CodeForbidden,
			Message: err.Error() + ": grant this Redis user the mailbox ACL rules of docs/PROTOCOL.md (\"Redis mailbox\")",
		})
	case err != nil:
		return resp, "", fmt.Errorf("membersdk: heartbeat through the Redis mailbox: %w", err)
	}
	if rep.Status < 200 || rep.Status > 299 {
		var eb protocol.ErrorBody
		_ = json.Unmarshal(rep.Body, &eb)
		if rep.Status == http.StatusUnauthorized || rep.Status == http.StatusForbidden {
			return resp, where, m.newError(true, where, rep.Status, eb)
		}
		return resp, "", m.newError(false, where, rep.Status, eb)
	}
	if err := json.Unmarshal(rep.Body, &resp); err != nil {
		return resp, "", fmt.Errorf("membersdk: decode the reply on %s: %w", m.mb.ReplyKey(), err)
	}
	return resp, where, nil
}

// Where is "redis-mailbox:" and the request stream key.
func (m *Mailbox) Where() string { return MailboxWhere + m.mb.RequestsKey() }

// Nudges yields when the coordinator asks for a heartbeat now.
func (m *Mailbox) Nudges() <-chan struct{} { return m.mb.Nudges() }

// Close stops the mailbox client.
func (m *Mailbox) Close() { m.mb.Close() }
