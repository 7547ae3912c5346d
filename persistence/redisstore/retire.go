package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// retireScript: KEYS stream, retired (same slot: the retired key's hash tag
// is the whole stream key); ARGV retention ms. Renames the stream away only
// if every consumer group on it is drained: pending 0 and lag 0; a group
// whose lag Redis reports as null (entries deleted in between, or a group
// moved with SETID) or not at all (Redis < 7) counts as drained when its
// last-delivered-id has reached the stream's last-generated-id, which is
// exact: nothing after it was ever written. Being one script, no XADD can
// land between the check and the rename.
var retireScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  if redis.call('EXISTS', KEYS[2]) == 1 then return {'RETIRED'} end
  return {'MISSING'}
end
local function field(arr, name)
  for i = 1, #arr, 2 do if arr[i] == name then return arr[i + 1] end end
  return nil
end
local function before(a, b)
  local ams, aseq = string.match(a, '^(%d+)-(%d+)$')
  local bms, bseq = string.match(b, '^(%d+)-(%d+)$')
  ams, aseq, bms, bseq = tonumber(ams), tonumber(aseq), tonumber(bms), tonumber(bseq)
  if ams ~= bms then return ams < bms end
  return aseq < bseq
end
local last = field(redis.call('XINFO', 'STREAM', KEYS[1]), 'last-generated-id')
local blocked = {}
for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  local pending = tonumber(field(g, 'pending'))
  local lag = field(g, 'lag')
  local drained
  if pending ~= 0 then
    drained = false
  elseif type(lag) == 'number' then
    drained = lag == 0
  else
    drained = not before(field(g, 'last-delivered-id'), last)
  end
  if not drained then
    local l = -1
    if type(lag) == 'number' then l = lag end
    table.insert(blocked, field(g, 'name'))
    table.insert(blocked, pending)
    table.insert(blocked, l)
  end
end
if #blocked > 0 then return {'BLOCKED', blocked} end
redis.call('RENAME', KEYS[1], KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return {'RETIRED'}
`)

// seedFenceScript: KEYS fence; ARGV token, at. Creates a fence with no owner
// at token where none exists.
var seedFenceScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'owner', '', 'epoch', 0, 'at', ARGV[2])
return 1
`)

// RetireShard implements persistence.Retirer.
func (p *Provisioner) RetireShard(ctx context.Context, streamPrefix string, shard int, retiredKey string, retention time.Duration) (persistence.Retirement, error) {
	key := ShardKey(streamPrefix, shard)
	op := fmt.Sprintf("retire %s to %s", key, retiredKey)
	var out persistence.Retirement
	if err := checkCtx(ctx, op); err != nil {
		return out, err
	}
	if shard < 0 || retention < time.Second {
		return out, fmt.Errorf("%s: invalid shard %d or retention %v", op, shard, retention)
	}
	res, err := retireScript.Run(ctx, p.c, []string{key, retiredKey}, retention.Milliseconds()).Slice()
	if err != nil {
		return out, mapErr(op, err)
	}
	switch str(res[0]) {
	case "RETIRED":
		out.Retired = true
	case "MISSING":
		out.Retired, out.Missing = true, true
	case "BLOCKED":
		arr, _ := res[1].([]any)
		for i := 0; i+2 < len(arr); i += 3 {
			out.Blocked = append(out.Blocked, persistence.GroupBacklog{Group: str(arr[i]), Pending: num(arr[i+1], 0), Lag: num(arr[i+2], -1)})
		}
	default:
		return out, fmt.Errorf("%s: unexpected reply %v", op, res)
	}
	return out, nil
}

// SeedFences implements persistence.Retirer.
func (p *Provisioner) SeedFences(ctx context.Context, streamPrefix, group string, shards []int, base int64) error {
	op := fmt.Sprintf("seed %d shard fence(s) of %s/%s", len(shards), streamPrefix, group)
	if len(shards) == 0 {
		return nil
	}
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	at := time.Now().UTC().Format(time.RFC3339Nano)
	if err := seedFenceScript.Load(ctx, p.c).Err(); err != nil {
		return mapErr(op, err)
	}
	pipe := p.c.Pipeline()
	cmds := make([]*redis.Cmd, len(shards))
	for i, s := range shards {
		cmds[i] = seedFenceScript.EvalSha(ctx, pipe, []string{protocol.FenceKey(ShardKey(streamPrefix, s), group)}, base, at)
	}
	_, _ = pipe.Exec(ctx)
	for _, c := range cmds {
		if err := c.Err(); err != nil {
			return mapErr(op, err)
		}
	}
	return nil
}

// DeleteFences implements persistence.Retirer.
func (p *Provisioner) DeleteFences(ctx context.Context, streamPrefix, group string, shards []int) error {
	op := fmt.Sprintf("delete %d shard fence(s) of %s/%s", len(shards), streamPrefix, group)
	if len(shards) == 0 {
		return nil
	}
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	pipe := p.c.Pipeline()
	for _, s := range shards {
		pipe.Del(ctx, protocol.FenceKey(ShardKey(streamPrefix, s), group))
	}
	_, err := pipe.Exec(ctx)
	return mapErr(op, err)
}
