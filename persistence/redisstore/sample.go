package redisstore

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// sampleBatch is how many shards one StreamGroups pipeline asks about.
const sampleBatch = 64

// GroupSample is what one XINFO GROUPS entry says of one consumer group on
// one shard: its pending count and its lag (-1 when Redis cannot tell:
// entries deleted or trimmed, or Redis < 7).
type GroupSample struct {
	Pending int64
	Lag     int64
}

// StreamGroups runs XINFO GROUPS on shards [0,shards) of a stream,
// pipelined in batches of 64, and returns per shard every consumer group it
// lists, by name. One call serves every group of the stream: the metrics
// sampler's Redis cost is one command per shard whatever the number of
// groups. A missing shard stream is a nil map (no group listed); any other
// error fails the batch it is in, and the shards read before it are
// returned with it.
func (p *Provisioner) StreamGroups(ctx context.Context, streamPrefix string, shards int) ([]map[string]GroupSample, error) {
	op := "stream groups " + streamPrefix
	if shards < 0 {
		return nil, fmt.Errorf("%s: invalid shard count %d", op, shards)
	}
	out := make([]map[string]GroupSample, 0, shards)
	for start := 0; start < shards; start += sampleBatch {
		if err := checkCtx(ctx, op); err != nil {
			return out, err
		}
		end := min(start+sampleBatch, shards)
		pipe := p.c.Pipeline()
		cmds := make([]*redis.Cmd, 0, end-start)
		for s := start; s < end; s++ {
			cmds = append(cmds, pipe.Do(ctx, "XINFO", "GROUPS", ShardKey(streamPrefix, s)))
		}
		_, _ = pipe.Exec(ctx) // errors are per command, checked below
		for i, c := range cmds {
			res, err := c.Result()
			if isNoSuchKey(err) {
				out = append(out, nil)
				continue
			}
			if err != nil {
				return out, mapErr(op+": "+ShardKey(streamPrefix, start+i), err)
			}
			groups, err := parseXInfoGroups(res)
			if err != nil {
				return out, fmt.Errorf("%s: %s: %w", op, ShardKey(streamPrefix, start+i), err)
			}
			m := make(map[string]GroupSample, len(groups))
			for _, g := range groups {
				m[str(g["name"])] = GroupSample{Pending: num(g["pending"], 0), Lag: num(g["lag"], -1)}
			}
			out = append(out, m)
		}
	}
	return out, nil
}
