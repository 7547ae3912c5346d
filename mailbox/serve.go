package mailbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// answer is what one request gets: nothing (drop), or a reply element for
// the member's reply list.
type answer struct {
	replyKey  string // "" = no reply can be named: dropped
	requestID string
	status    int
	body      []byte
	result    string
	hbStatus  string // the protocol status of a 200 answer
	rawBody   string // the request body, for requestIDOf on a refusal (also an oversized one: its member must be able to correlate the 400)
}

// serve handles one request entry and replies.
func (r *Reader) serve(p *principal, m redis.XMessage, readAt, redisNow time.Time) {
	a := r.evaluate(p, m, redisNow)
	if a.replyKey != "" && a.result != ResultExpired {
		if err := r.reply(a); err != nil {
			r.o.Logger.Warn("mailbox: pushing a reply failed; the member times out and retries", "key", a.replyKey, "requestId", a.requestID, "err", err)
		}
	}
	if r.o.Metrics != nil {
		r.o.Metrics.MailboxRequest(a.result, a.heartbeatStatus(), time.Since(readAt))
	}
}

func field(m redis.XMessage, name string) (string, bool) {
	v, ok := m.Values[name]
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

// evaluate decodes, validates and authorizes one entry exactly as api's
// heartbeat handler does a request, and calls the Service.
func (r *Reader) evaluate(p *principal, m redis.XMessage, redisNow time.Time) answer {
	member, _ := field(m, protocol.MailboxFieldMember)
	if protocol.ValidateMemberID(member) != nil {
		// No reply list can be named for it: dropped.
		r.o.Logger.Debug("mailbox: dropped a request without a valid member field", "key", p.key, "entry", m.ID)
		return answer{result: ResultRejected}
	}
	// The reply list names the group too. A stream or group field longer
	// than any name is dropped unanswered (it would make a reply key of any
	// size); a shorter invalid one, even empty, is answered 400 below, like HTTP.
	stream, group := fieldOr(m, protocol.MailboxFieldStream), fieldOr(m, protocol.MailboxFieldGroup)
	if len(stream) > protocol.MaxNameLength || len(group) > protocol.MaxNameLength {
		r.o.Logger.Debug("mailbox: dropped a request without a usable stream or group field", "key", p.key, "entry", m.ID)
		return answer{result: ResultRejected}
	}
	a := answer{replyKey: protocol.MailboxReplyKey(r.o.KeyPrefix, p.name, stream, group, member)}
	body, _ := field(m, protocol.MailboxFieldBody)
	a.rawBody = body
	timeout, err := strconv.ParseInt(fieldOr(m, protocol.MailboxFieldTimeout), 10, 64)
	if err != nil || timeout <= 0 {
		return a.refuse(http.StatusBadRequest, protocol.CodeMalformedRequest, "field timeout must be the milliseconds the member waits for the reply (a positive integer)")
	}
	deadline := entryTime(m.ID).Add(time.Duration(timeout) * time.Millisecond)
	if !redisNow.Before(deadline) {
		a.result = ResultExpired
		return a
	}
	if v := fieldOr(m, protocol.MailboxFieldVersion); v != strconv.Itoa(protocol.MailboxVersion) {
		return a.refuse(http.StatusBadRequest, protocol.CodeMalformedRequest, fmt.Sprintf("field v is %q; this coordinator speaks mailbox framing version %d", truncate(v, 20), protocol.MailboxVersion))
	}
	if op := fieldOr(m, protocol.MailboxFieldOp); op != protocol.MailboxOpHeartbeat {
		return a.refuse(http.StatusBadRequest, protocol.CodeMalformedRequest, fmt.Sprintf("field op is %q; the only operation is %q (a leave is a heartbeat with memberEpoch -1)", truncate(op, 40), protocol.MailboxOpHeartbeat))
	}
	if len(body) > r.o.BodyLimit {
		return a.refuse(http.StatusBadRequest, protocol.CodePayloadTooLarge, "request body is larger than the server's body limit (http.body-limit)")
	}
	if p.rights != nil {
		if err := p.rights.MayHeartbeat(stream, group); err != nil {
			return a.refuse(http.StatusForbidden, protocol.CodeForbidden, err.Error())
		}
	}
	if err := protocol.ValidateName("streamPrefix", stream); err != nil {
		return a.refuse(http.StatusBadRequest, protocol.CodeInvalidArgument, nameMessage(err))
	}
	if err := protocol.ValidateName("consumerGroup", group); err != nil {
		return a.refuse(http.StatusBadRequest, protocol.CodeInvalidArgument, nameMessage(err))
	}
	req, err := protocol.DecodeHeartbeat([]byte(body))
	if err != nil {
		return a.refuse(http.StatusBadRequest, protocol.CodeMalformedRequest, strings.TrimPrefix(err.Error(), protocol.ErrMalformed.Error()+": "))
	}
	if err := coordinator.CheckHeartbeat(&req); err != nil {
		return a.refuse(http.StatusBadRequest, protocol.CodeInvalidArgument, err.Error())
	}
	// Who speaks for the member: the principal whose key the entry was
	// written to (Redis ACLs let only that user write it), never the body.
	req.Principal, req.Transport = p.asked, protocol.TransportRedis
	a.requestID = req.RequestID
	callDeadline := time.Now().Add(r.o.CallTimeout)
	if d := time.Now().Add(deadline.Sub(redisNow)); d.Before(callDeadline) {
		callDeadline = d
	}
	ctx, cancel := context.WithDeadline(coordinator.WithRequestID(context.Background(), req.RequestID), callDeadline)
	defer cancel()
	resp, err := r.members.Heartbeat(ctx, stream, group, member, req)
	if err != nil {
		ans := coordinator.AnswerFor(err)
		if ans.Internal {
			r.o.Logger.Error("mailbox request failed", "key", p.key, "stream", stream, "group", group, "member", member, "requestId", req.RequestID, "status", ans.Status, "error", err)
		}
		return a.answerWith(ans)
	}
	a.status, a.result, a.hbStatus = http.StatusOK, ResultOK, string(resp.Status)
	a.body = protocol.AppendHeartbeatResponse(nil, &resp)
	return a
}

// heartbeatStatus is how rsc_heartbeats_total labels a's outcome, as the HTTP front labels
// the same request's: the protocol status of a 200, REJECTED for a 4xx, ERROR for a 5xx; ""
// when nothing is answered (dropped or expired).
func (a answer) heartbeatStatus() string {
	switch {
	case a.replyKey == "" || a.result == ResultExpired:
		return ""
	case a.status == http.StatusOK:
		return a.hbStatus
	case a.status >= 500:
		return "ERROR"
	}
	return "REJECTED"
}

func fieldOr(m redis.XMessage, name string) string { s, _ := field(m, name); return s }

// refuse answers with an error body of the transport's own (not a Service error).
func (a answer) refuse(status int, code, msg string) answer {
	return a.answerWith(coordinator.Answer{Status: status, Code: code, Message: msg})
}

func (a answer) answerWith(ans coordinator.Answer) answer {
	a.status = ans.Status
	a.body, _ = json.Marshal(ans.Body())
	if a.requestID == "" && a.rawBody != "" {
		a.requestID = requestIDOf(a.rawBody)
	}
	switch {
	case ans.Status == http.StatusForbidden:
		a.result = ResultForbidden
	case ans.Status == http.StatusBadRequest:
		a.result = ResultRejected
	default:
		a.result = ResultError
	}
	return a
}

func nameMessage(err error) string {
	return strings.TrimPrefix(err.Error(), protocol.ErrInvalidName.Error()+": ")
}

// requestIDOf reads the requestId of a body, best effort, so that even a
// body the decoder refuses gets a reply its member can correlate.
func requestIDOf(body string) string {
	var x struct {
		RequestID string `json:"requestId"`
	}
	_ = json.Unmarshal([]byte(body), &x)
	if len(x.RequestID) > protocol.MaxStringLength {
		return ""
	}
	return x.RequestID
}

// entryTime is the time part of a stream entry id ("<ms>-<seq>"), the
// Redis clock when the entry was added.
func entryTime(id string) time.Time {
	ms, _, _ := strings.Cut(id, "-")
	n, _ := strconv.ParseInt(ms, 10, 64)
	return time.UnixMilli(n)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
