package fencedsink

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk"
)

// ErrStaleWriter: the sink has seen a higher fencing token for the shard;
// the write came from a member that no longer owns it and was not applied.
var ErrStaleWriter = errors.New("fencedsink: stale writer (a newer owner of the shard has written)")

// Sink writes fields of one Redis hash (Key) and keeps the highest fencing
// token seen per shard in another (TokensKey). On Redis Cluster put both in
// one slot (e.g. "{sink}:data" and "{sink}:tokens").
type Sink struct {
	RC        redis.Cmdable
	Key       string
	TokensKey string
}

// sinkScript: KEYS = {data hash, token hash}; ARGV = {shard, token, field,
// value}. Refuses when the stored token of the shard is higher; else stores
// the token and the field, atomically.
var sinkScript = redis.NewScript(`
local seen = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local tok = tonumber(ARGV[2])
if tok < seen then
  return redis.error_reply('STALE shard ' .. ARGV[1] .. ' token ' .. ARGV[2] .. ' < ' .. seen)
end
if tok > seen then redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end
redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
return 1
`)

// Write sets field to value on behalf of the owner of shard holding token.
func (s *Sink) Write(ctx context.Context, shard int, token int64, field, value string) error {
	err := sinkScript.Run(ctx, s.RC, []string{s.Key, s.TokensKey}, strconv.Itoa(shard), token, field, value).Err()
	if err != nil && strings.HasPrefix(err.Error(), "STALE") {
		return fmt.Errorf("%w: %s", ErrStaleWriter, err)
	}
	return err
}

// Handler is a membersdk handler that writes every entry's "value" field
// under its id, fenced by the message's token. A stale writer's error makes
// the SDK retry the entry; its acknowledgement is refused by the shard fence
// anyway, so the entry goes to the shard's real owner.
func (s *Sink) Handler(ctx context.Context, m membersdk.Message) error {
	v, _ := m.Values["value"].(string)
	return s.Write(ctx, m.Shard, m.FencingToken, m.ID, v)
}
