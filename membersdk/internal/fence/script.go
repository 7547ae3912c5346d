package fence

import (
	"context"
	"crypto/sha1" //nolint:gosec // EVALSHA names scripts by SHA-1
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Check is the common head of the scripts: KEYS[2] is the fence,
// ARGV[1] the member, ARGV[2] the token held ("" = unfenced: the fence must
// not exist). A refusal is an error reply starting with "FENCED".
const Check = `
local f = redis.call('HMGET', KEYS[2], 'owner', 'token')
if ARGV[2] == '' then
  if f[1] or f[2] then
    return redis.error_reply('FENCED fence appeared: owner=' .. tostring(f[1]) .. ' token=' .. tostring(f[2]))
  end
elseif f[1] ~= ARGV[1] or f[2] ~= ARGV[2] then
  return redis.error_reply('FENCED owner=' .. tostring(f[1]) .. ' token=' .. tostring(f[2]))
end
`

// AckScript: KEYS = {stream, fence}; ARGV = {member, token, group, id...}.
// Returns XACK's count.
var AckScript = NewScript(Check + `
return redis.call('XACK', KEYS[1], ARGV[3], unpack(ARGV, 4))
`)

// ClaimScript: KEYS = {stream, fence}; ARGV = {member, token, group,
// consumer, min-idle-ms, start, count}. Returns XAUTOCLAIM's reply.
var ClaimScript = NewScript(Check + `
return redis.call('XAUTOCLAIM', KEYS[1], ARGV[3], ARGV[4], ARGV[5], ARGV[6], 'COUNT', ARGV[7])
`)

// DeadLetterScript: KEYS = {stream, fence, dead-letter stream}; ARGV =
// {member, token, group, id, field, value, ...}. XADD to the dead-letter
// stream and XACK of the entry, atomically. Returns the dead-letter id.
var DeadLetterScript = NewScript(Check + `
local id = redis.call('XADD', KEYS[3], '*', unpack(ARGV, 5))
redis.call('XACK', KEYS[1], ARGV[3], ARGV[4])
return id
`)

// Refusal turns a script's "FENCED ..." error reply into ErrFenced.
func Refusal(err error) error {
	if err != nil && strings.HasPrefix(err.Error(), "FENCED") {
		return fmt.Errorf("%w: %s", ErrFenced, strings.TrimPrefix(err.Error(), "FENCED "))
	}
	return err
}

// Script is a Lua script run with EVALSHA (EVAL the first time a
// server does not have it cached), into a command whose reply parser fits
// the script's reply (redis.Script only returns a generic Cmd).
type Script struct{ Src, SHA string }

func NewScript(src string) *Script {
	h := sha1.Sum([]byte(src))
	return &Script{Src: src, SHA: hex.EncodeToString(h[:])}
}

// processor is what can send a prepared command: *redis.Client,
// *redis.ClusterClient, *redis.Conn, redis.UniversalClient.
type processor interface {
	Process(ctx context.Context, cmd redis.Cmder) error
}

// run sends the script with keys and args; mk builds the command (e.g.
// redis.NewIntCmd) from the full argument list. A fence refusal comes back
// as ErrFenced (wrapped).
func (s *Script) Run(ctx context.Context, rc redis.Cmdable, keys []string, args []any, mk func(ctx context.Context, args ...any) redis.Cmder) (redis.Cmder, error) {
	p, ok := rc.(processor)
	if !ok {
		return nil, fmt.Errorf("membersdk: redis client %T cannot run scripts", rc)
	}
	build := func(name, body string) redis.Cmder {
		a := make([]any, 0, 3+len(keys)+len(args))
		a = append(a, name, body, len(keys))
		for _, k := range keys {
			a = append(a, k)
		}
		a = append(a, args...)
		return mk(ctx, a...)
	}
	cmd := build("evalsha", s.SHA)
	err := p.Process(ctx, cmd)
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
		cmd = build("eval", s.Src)
		err = p.Process(ctx, cmd)
	}
	return cmd, Refusal(err)
}

// ScriptXAck acknowledges ids on streamKey for group in one script that
// first checks the shard's fence (Key(streamKey, group)) names memberID
// with token, and returns XACK's count. token 0 means unfenced (the fence
// key must not exist). A refusal returns ErrFenced and acknowledges
// nothing. Clients that read shards themselves reach it through
// NewFencedScriptAcker.
func ScriptXAck(ctx context.Context, rc redis.Cmdable, streamKey, group, memberID string, token int64, ids ...string) (int64, error) {
	h := Hold{Key: Key(streamKey, group), Token: token, Fenced: token != 0}
	args := make([]any, 0, 3+len(ids))
	args = append(args, memberID, h.TokenArg(), group)
	for _, id := range ids {
		args = append(args, id)
	}
	cmd, err := AckScript.Run(ctx, rc, []string{streamKey, h.Key}, args, newIntCmd)
	if err != nil {
		return 0, err
	}
	return cmd.(*redis.IntCmd).Val(), nil
}

func newIntCmd(ctx context.Context, args ...any) redis.Cmder { return redis.NewIntCmd(ctx, args...) }
