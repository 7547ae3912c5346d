package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// ---- the Redis mailbox transport (-transport redis) ---------------------------

// A mailbox member as docs/PROTOCOL.md describes it, without member authentication (principal
// "-"): XADD the heartbeat, BLPOP the reply list until its reply arrives; between heartbeats
// it waits on the same list, so a nudge wakes it and it heartbeats at once.

const mbTimeout = 5 * time.Second

func (w *world) mbReplyKey(m *state) string {
	return protocol.MailboxReplyKey(protocol.DefaultMailboxKeyPrefix, protocol.MailboxNoAuthPrincipal, *stream, m.group, m.id)
}

// mbSend sends one heartbeat body through the mailbox and waits for its reply. A nudge popped
// meanwhile is remembered (m.nudged): the member heartbeats again at once.
func (w *world) mbSend(m *state, body []byte) (*protocol.HeartbeatResponse, error) {
	var id struct {
		RequestID string `json:"requestId"`
	}
	_ = json.Unmarshal(body, &id)
	ctx := context.Background()
	err := w.rdb.XAdd(ctx, &redis.XAddArgs{
		Stream: protocol.MailboxRequestsKey(protocol.DefaultMailboxKeyPrefix, protocol.MailboxNoAuthPrincipal),
		MaxLen: protocol.DefaultMailboxMaxRequests, Approx: true,
		Values: map[string]any{
			protocol.MailboxFieldVersion: strconv.Itoa(protocol.MailboxVersion),
			protocol.MailboxFieldStream:  *stream, protocol.MailboxFieldGroup: m.group, protocol.MailboxFieldMember: m.id,
			protocol.MailboxFieldOp: protocol.MailboxOpHeartbeat, protocol.MailboxFieldBody: string(body),
			protocol.MailboxFieldTimeout: strconv.FormatInt(mbTimeout.Milliseconds(), 10),
		}}).Err()
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(mbTimeout)
	for {
		r, err := w.mbPop(ctx, m, time.Until(deadline))
		if err != nil {
			return nil, err
		}
		if r == nil {
			return nil, fmt.Errorf("no reply to %s within %s", id.RequestID, mbTimeout)
		}
		if r.Kind == protocol.MailboxKindNudge {
			m.nudged = true
			continue
		}
		if r.Kind != protocol.MailboxKindReply || r.RequestID != id.RequestID {
			continue
		}
		if r.Status != 200 {
			return nil, fmt.Errorf("reply status %d", r.Status)
		}
		var resp protocol.HeartbeatResponse
		if err := json.Unmarshal(r.Body, &resp); err != nil {
			return nil, err
		}
		return &resp, nil
	}
}

// mbWait waits up to d for the next heartbeat; a nudge (popped now, or while the last reply
// was awaited) ends the wait at once.
func (w *world) mbWait(ctx context.Context, m *state, d time.Duration) {
	deadline := time.Now().Add(d)
	for !m.nudged && ctx.Err() == nil {
		left := time.Until(deadline)
		if left < time.Millisecond {
			return
		}
		r, err := w.mbPop(ctx, m, min(left, time.Second))
		if err != nil {
			time.Sleep(min(left, 50*time.Millisecond))
			continue
		}
		if r != nil && r.Kind == protocol.MailboxKindNudge {
			m.nudged = true
		}
	}
	m.nudged = false
}

// mbPop pops one element of m's reply list, waiting up to d (nil: none).
func (w *world) mbPop(ctx context.Context, m *state, d time.Duration) (*protocol.MailboxReply, error) {
	if d < time.Millisecond {
		return nil, nil
	}
	res, err := w.rdb.BLPop(ctx, d, w.mbReplyKey(m)).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r protocol.MailboxReply
	if err := json.Unmarshal([]byte(res[1]), &r); err != nil {
		return &protocol.MailboxReply{}, nil // not ours to understand: skip it
	}
	return &r, nil
}
