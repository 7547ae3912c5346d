package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore/lua"
)

// SetFences implements persistence.Fences: one script call per shard,
// pipelined (each fence key is in its own shard's slot, so on a Cluster
// the pipeline fans out per node).
func (p *Provisioner) SetFences(ctx context.Context, streamPrefix, group string, updates []persistence.FenceUpdate) error {
	return p.setFences(ctx, streamPrefix, group, updates, true)
}

func (p *Provisioner) setFences(ctx context.Context, streamPrefix, group string, updates []persistence.FenceUpdate, load bool) error {
	op := fmt.Sprintf("set %d shard fence(s) of %s/%s", len(updates), streamPrefix, group)
	if len(updates) == 0 {
		return nil
	}
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	at := time.Now().UTC().Format(time.RFC3339Nano)
	pipe := p.c.Pipeline()
	cmds := make([]*redis.Cmd, len(updates))
	for i, u := range updates {
		if u.Shard < 0 {
			return fmt.Errorf("%s: invalid shard %d", op, u.Shard)
		}
		key := protocol.FenceKey(ShardKey(streamPrefix, u.Shard), group)
		// EVALSHA in a pipeline; on NOSCRIPT (a restarted or flushed server) the
		// script is loaded once and the whole batch sent again (it is idempotent
		// in effect: the token only moves further).
		cmds[i] = lua.Fence.EvalSha(ctx, pipe, []string{key}, u.Owner, u.Epoch, at, u.Base)
	}
	_, _ = pipe.Exec(ctx) // errors are per command, checked below
	if load && isNoScript(cmds) {
		if err := lua.Fence.Load(ctx, p.c).Err(); err != nil {
			return mapErr(op, err)
		}
		return p.setFences(ctx, streamPrefix, group, updates, false)
	}
	for _, c := range cmds {
		if err := c.Err(); err != nil {
			return mapErr(op, err)
		}
	}
	return nil
}

func isNoScript(cmds []*redis.Cmd) bool {
	for _, c := range cmds {
		if err := c.Err(); err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
			return true
		}
	}
	return false
}

// GetFences implements persistence.Fences: one HMGET per shard, pipelined.
func (p *Provisioner) GetFences(ctx context.Context, streamPrefix, group string, shards []int) ([]persistence.Fence, error) {
	op := fmt.Sprintf("read %d shard fence(s) of %s/%s", len(shards), streamPrefix, group)
	if len(shards) == 0 {
		return nil, nil
	}
	if err := checkCtx(ctx, op); err != nil {
		return nil, err
	}
	pipe := p.c.Pipeline()
	cmds := make([]*redis.SliceCmd, len(shards))
	for i, s := range shards {
		if s < 0 {
			return nil, fmt.Errorf("%s: invalid shard %d", op, s)
		}
		cmds[i] = pipe.HMGet(ctx, protocol.FenceKey(ShardKey(streamPrefix, s), group), "owner", "token", "epoch", "at")
	}
	_, _ = pipe.Exec(ctx) // errors are per command, checked below
	out := make([]persistence.Fence, len(shards))
	for i, c := range cmds {
		v, err := c.Result()
		if err != nil {
			return nil, mapErr(op, err)
		}
		if out[i], err = parseFence(v); err != nil {
			return nil, fmt.Errorf("%s: shard %d: %w", op, shards[i], err)
		}
	}
	return out, nil
}

func parseFence(v []any) (persistence.Fence, error) {
	var f persistence.Fence
	var err error
	str := func(i int) string { s, _ := v[i].(string); return s }
	f.Owner = str(0)
	if s := str(1); s != "" {
		if f.Token, err = strconv.ParseInt(s, 10, 64); err != nil {
			return f, fmt.Errorf("token %q: %w", s, err)
		}
	}
	if s := str(2); s != "" {
		if f.Epoch, err = strconv.ParseInt(s, 10, 64); err != nil {
			return f, fmt.Errorf("epoch %q: %w", s, err)
		}
	}
	if s := str(3); s != "" {
		if f.At, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return f, fmt.Errorf("at %q: %w", s, err)
		}
	}
	return f, nil
}
