package harness

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Exchange is one heartbeat round trip as the member saw it: what it sent,
// when, and what came back. Reading is what the member reads or drains
// after applying the answer (the shards it may touch until its next
// heartbeat, a release, or its self-fence deadline).
type Exchange struct {
	Member     string
	URL        string
	SentAt     time.Time
	RecvAt     time.Time
	Request    protocol.HeartbeatRequest
	HTTPStatus int   // 0 when Err is set
	Err        error // transport error or undecodable answer
	Response   protocol.HeartbeatResponse
	Reading    []int
}

// Answered reports whether the exchange got a protocol answer.
func (e Exchange) Answered() bool { return e.Err == nil && e.HTTPStatus == http.StatusOK }

// ErrNoAnswer is returned by FailoverMember.Beat when no coordinator gave an
// answer other than RETRY within the time allowed.
var ErrNoAnswer = errors.New("harness: no coordinator answered the heartbeat")

// FailoverMember is a Member that knows several coordinator URLs and, like
// the SDK, moves to the next one when the current one fails: a transport
// error, an HTTP status other than 200, or RETRY. Every attempt is passed to
// Observe. It is not safe for concurrent use.
type FailoverMember struct {
	*Member
	clients []*Client
	cur     int
	// Observe, when set, receives every exchange.
	Observe func(Exchange)
	// RetryPause is the wait before retrying on the next URL (default 50ms).
	RetryPause time.Duration
}

// NewFailoverMember returns a member that has not joined yet and sends to
// urls[start % len(urls)] first. timeout bounds each request (a paused node
// accepts connections and never answers).
func NewFailoverMember(urls []string, start int, timeout time.Duration, prefix, group, id string) *FailoverMember {
	m := &FailoverMember{RetryPause: 50 * time.Millisecond}
	for _, u := range urls {
		c := NewClient(u)
		c.HTTP = &http.Client{Timeout: timeout}
		m.clients = append(m.clients, c)
	}
	m.cur = start % len(urls)
	m.Member = NewMember(m.clients[m.cur], prefix, group, id)
	return m
}

// Current is the index of the URL the member sends to next.
func (m *FailoverMember) Current() int { return m.cur }

// SwitchTo makes the member send to urls[i] next.
func (m *FailoverMember) SwitchTo(i int) {
	m.cur = i % len(m.clients)
	m.C = m.clients[m.cur]
}

// Beat sends the member's heartbeat, failing over between URLs until an
// answer other than RETRY arrives or within has passed, and applies that
// answer (Member.Apply). It returns the answer, or ErrNoAnswer.
func (m *FailoverMember) Beat(within time.Duration) (protocol.HeartbeatResponse, error) {
	return m.send(m.Request, within)
}

// Leave sends a leave heartbeat (memberEpoch -1, nothing owned or
// draining: the member has stopped reading everything) with fail-over as in
// Beat. Once it is answered the member holds nothing and would rejoin with
// epoch 0.
func (m *FailoverMember) Leave(within time.Duration) (protocol.HeartbeatResponse, error) {
	return m.send(func() protocol.HeartbeatRequest {
		req := m.Request()
		req.MemberEpoch = protocol.EpochLeave
		req.OwnedShards = []protocol.ShardID{}
		req.RevokingShards = []protocol.RevokingShard{}
		return req
	}, within)
}

func (m *FailoverMember) send(build func() protocol.HeartbeatRequest, within time.Duration) (protocol.HeartbeatResponse, error) {
	deadline := time.Now().Add(within)
	var last string
	for {
		ex := m.exchange(build())
		if m.Observe != nil {
			m.Observe(ex)
		}
		if ex.Answered() && ex.Response.Status != protocol.StatusRetry {
			return ex.Response, nil
		}
		switch {
		case ex.Err != nil:
			last = ex.Err.Error()
		case ex.HTTPStatus != http.StatusOK:
			last = fmt.Sprintf("HTTP %d from %s", ex.HTTPStatus, ex.URL)
		default:
			last = fmt.Sprintf("RETRY from %s: %s", ex.URL, ex.Response.Message)
		}
		if time.Now().After(deadline) {
			return protocol.HeartbeatResponse{}, fmt.Errorf("%w within %s (last: %s)", ErrNoAnswer, within, last)
		}
		m.SwitchTo(m.cur + 1)
		time.Sleep(m.RetryPause)
	}
}

// exchange sends req once to the current URL; on a 200 answer other than
// RETRY it applies it.
func (m *FailoverMember) exchange(req protocol.HeartbeatRequest) Exchange {
	ex := Exchange{Member: m.ID, URL: m.C.Base, Request: req, SentAt: time.Now()}
	var resp protocol.HeartbeatResponse
	ex.HTTPStatus, _, ex.Err = m.C.Do("POST", HeartbeatPath(m.Prefix, m.Group, m.ID), req, &resp)
	ex.RecvAt = time.Now()
	if ex.Answered() {
		ex.Response = resp
		switch {
		case resp.Status == protocol.StatusRetry:
		case req.MemberEpoch == protocol.EpochLeave:
			m.Epoch, m.Owned, m.Draining, m.Last = protocol.EpochJoin, map[int]bool{}, map[int]bool{}, resp
		default:
			m.Apply(resp)
		}
	}
	ex.Reading = append(sorted(m.Owned), sorted(m.Draining)...)
	return ex
}
