package mailbox

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// replyScript pushes one reply element to a member's reply list, keeps the
// newest ARGV[2] elements and (re)sets the list's expiry to ARGV[3] ms: one
// command per answer, and a list nobody reads disappears by itself.
var replyScript = redis.NewScript(`
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`)

// replyTimeout bounds one reply push.
const replyTimeout = 2 * time.Second

// reply pushes a's reply element.
func (r *Reader) reply(a answer) error {
	ctx, cancel := context.WithTimeout(context.Background(), replyTimeout)
	defer cancel()
	return replyScript.Run(ctx, r.rdb, []string{a.replyKey}, encodeReply(a), r.o.MaxReplies, r.o.ReplyTTL.Milliseconds()).Err()
}

// encodeReply is the reply element of docs/PROTOCOL.md:
// {"v":1,"kind":"reply","requestId":"…","status":200,"body":{…}}, body
// being the exact HTTP response body.
func encodeReply(a answer) []byte {
	id, _ := json.Marshal(a.requestID)
	b := make([]byte, 0, len(a.body)+len(id)+64)
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, protocol.MailboxVersion, 10)
	b = append(b, `,"kind":"`+protocol.MailboxKindReply+`","requestId":`...)
	b = append(b, id...)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(a.status), 10)
	b = append(b, `,"body":`...)
	b = append(b, a.body...)
	return append(b, '}')
}
