package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore/lua"
)

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
	res, err := lua.Retire.Run(ctx, p.c, []string{key, retiredKey}, retention.Milliseconds()).Slice()
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
	if err := lua.SeedFence.Load(ctx, p.c).Err(); err != nil {
		return mapErr(op, err)
	}
	pipe := p.c.Pipeline()
	cmds := make([]*redis.Cmd, len(shards))
	for i, s := range shards {
		cmds[i] = lua.SeedFence.EvalSha(ctx, pipe, []string{protocol.FenceKey(ShardKey(streamPrefix, s), group)}, base, at)
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
