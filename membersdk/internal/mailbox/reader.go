package mailbox

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Reader back-off after a failed BLPOP (Redis down, refused): doubled from
// the first to the last pause.
const (
	firstReadPause = 50 * time.Millisecond
	lastReadPause  = time.Second
)

// read is the one reader of the reply list: BLPOP after BLPOP until Close,
// so that a reply or a nudge is taken as soon as it is pushed, and no other
// reader of this Client can take a reply meant for a Send.
func (c *Client) read() {
	var pause time.Duration
	for c.ctx.Err() == nil {
		res, err := c.rc.BLPop(c.ctx, time.Duration(c.idleBlock.Load()), c.reply).Result()
		switch {
		case err == nil:
			c.setReadErr(nil)
			pause = 0
			if len(res) == 2 {
				c.dispatch(res[1])
			}
		case errors.Is(err, redis.Nil): // the block time passed with nothing pushed
			c.setReadErr(nil)
			pause = 0
		case c.ctx.Err() != nil || errors.Is(err, redis.ErrClosed):
			return
		default:
			if c.setReadErr(err) {
				c.log.Warn("reading the Redis mailbox reply list failed; retrying", "key", c.reply, "error", err)
			}
			pause = min(max(2*pause, firstReadPause), lastReadPause)
			select {
			case <-c.ctx.Done():
				return
			case <-time.After(pause):
			}
		}
	}
}

// setReadErr records the reader's last failure (nil: the last read worked)
// and reports whether this one is the first after a success.
func (c *Client) setReadErr(err error) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	first := err != nil && c.readErr == nil
	c.readErr = err
	return first
}

// dispatch hands a reply to the Send waiting for its requestId (a reply
// nobody waits for any more, a late answer to an abandoned request, is
// dropped) and signals a nudge.
func (c *Client) dispatch(raw string) {
	var r protocol.MailboxReply
	if err := json.Unmarshal([]byte(raw), &r); err != nil || r.V != protocol.MailboxVersion {
		c.log.Warn("dropped a reply list element that is not a version 1 mailbox reply", "key", c.reply, "element", truncate(raw, 200), "error", err)
		return
	}
	switch r.Kind {
	case protocol.MailboxKindNudge:
		select {
		case c.nudge <- struct{}{}:
		default: // one is pending already
		}
	case protocol.MailboxKindReply:
		c.mu.Lock()
		ch, ok := c.waiting[r.RequestID]
		delete(c.waiting, r.RequestID)
		c.mu.Unlock()
		if !ok {
			c.log.Debug("dropped a reply to a request nobody waits for (a late answer)", "key", c.reply, "requestId", r.RequestID)
			return
		}
		ch <- r // buffered; the only send on ch
	default:
		c.log.Warn("dropped a mailbox reply element of unknown kind", "key", c.reply, "kind", r.Kind)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
