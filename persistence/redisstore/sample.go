package redisstore

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

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
	err := p.eachShard(ctx, op, streamPrefix, shards, func(pipe redis.Pipeliner, key string) *redis.Cmd {
		return pipe.Do(ctx, "XINFO", "GROUPS", key)
	}, func(key string, c *redis.Cmd) error {
		res, err := c.Result()
		if isNoSuchKey(err) {
			out = append(out, nil)
			return nil
		}
		if err != nil {
			return mapErr(op+": "+key, err)
		}
		groups, err := parseXInfoGroups(res)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", op, key, err)
		}
		m := make(map[string]GroupSample, len(groups))
		for _, g := range groups {
			m[str(g["name"])] = GroupSample{Pending: num(g["pending"], 0), Lag: num(g["lag"], -1)}
		}
		out = append(out, m)
		return nil
	})
	return out, err
}

// eachShard queues one command per shard of [0,shards) of a stream with
// queue, in pipelines of sampleBatch, and hands each reply, in shard order,
// to reply. The first error reply returns (the shards before it were
// handed over); so does a context that ended between two pipelines.
func (p *Provisioner) eachShard(ctx context.Context, op, streamPrefix string, shards int,
	queue func(pipe redis.Pipeliner, key string) *redis.Cmd, reply func(key string, c *redis.Cmd) error) error {
	for start := 0; start < shards; start += sampleBatch {
		if err := checkCtx(ctx, op); err != nil {
			return err
		}
		end := min(start+sampleBatch, shards)
		pipe := p.c.Pipeline()
		cmds := make([]*redis.Cmd, 0, end-start)
		for s := start; s < end; s++ {
			cmds = append(cmds, queue(pipe, ShardKey(streamPrefix, s)))
		}
		_, _ = pipe.Exec(ctx) // errors are per command, handed to reply
		for i, c := range cmds {
			if err := reply(ShardKey(streamPrefix, start+i), c); err != nil {
				return err
			}
		}
	}
	return nil
}

// recountLagScript sets the entries-read counter of every consumer group of
// one shard stream to its exact value where that can be told cheaply: the
// entries the stream ever had (entries-added), minus those after the group's
// last-delivered-id — none when it read the last entry, else counted with
// XRANGE, at most min(its reported lag, ARGV[1]) of them (a stale counter
// is behind, so the reported lag bounds the count). Entries trimmed before
// the group read them count as read, as in Redis' own estimate. A group
// further behind is left as it is, and so is one whose counter Redis does
// not keep but whose lag it can estimate (a new group). KEYS = {shard
// stream}; ARGV = {bound}. Replies {groups recounted, groups left}. The
// group's position, pending entries and consumers do not change; one
// script, so that no XREADGROUP moves a group between the count and the
// write.
var recountLagScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, 0} end
local function field(arr, name)
  for i = 1, #arr, 2 do if arr[i] == name then return arr[i + 1] end end
end
local bound = tonumber(ARGV[1])
local info = redis.call('XINFO', 'STREAM', KEYS[1])
local added, tip = field(info, 'entries-added'), field(info, 'last-generated-id')
local fixed, left = 0, 0
for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  local name, last, read, lag = field(g, 'name'), field(g, 'last-delivered-id'), field(g, 'entries-read'), field(g, 'lag')
  local exact
  -- Without a counter (a new group) Redis estimates the lag: only a lag it
  -- cannot tell needs one.
  if read or not lag then
    if last == tip then
      exact = added -- it read the last entry: nothing to count
    else
      -- A stale counter is behind, so the entries after the group are at
      -- most the lag it reports.
      local n = bound
      if lag and lag < n then n = lag end
      local tail = redis.call('XRANGE', KEYS[1], '(' .. last, '+', 'COUNT', n + 1)
      if #tail <= n then exact = added - #tail else left = left + 1 end
    end
  end
  if exact and read ~= exact then
    redis.call('XGROUP', 'SETID', KEYS[1], name, last, 'ENTRIESREAD', exact)
    fixed = fixed + 1
  end
end
return {fixed, left}
`)

// RecountBound is how many undelivered entries RecountLag counts at most
// per group and shard.
const RecountBound = 1_000

// LagRecount is what RecountLag did on a stream.
type LagRecount struct {
	// Recounted: group-shards whose counter was wrong and is now exact.
	Recounted int64
	// Left: group-shards more than RecountBound entries behind, whose
	// counter was left as it was.
	Left int64
}

// RecountLag sets the lag counter of every consumer group on shards
// [0,shards) of a stream to its exact value (recountLagScript), pipelined
// in batches of 64.
//
// Why: a promoted replica can hold a group's entries-read counter behind its
// primary's (seen on Redis 7.0 after a failover: a group that had read
// everything reported a lag of 87), and XINFO GROUPS then reports a lag too
// high by the difference for good: the counter goes on from the stale value.
// Cost per shard: one script reading XINFO STREAM and XINFO GROUPS and, per
// group not at the end of the stream, at most RecountBound entries.
func (p *Provisioner) RecountLag(ctx context.Context, streamPrefix string, shards int) (LagRecount, error) {
	op := "recount lag " + streamPrefix
	var out LagRecount
	err := p.eachShard(ctx, op, streamPrefix, shards, func(pipe redis.Pipeliner, key string) *redis.Cmd {
		return recountLagScript.Eval(ctx, pipe, []string{key}, RecountBound)
	}, func(key string, c *redis.Cmd) error {
		res, err := c.Int64Slice()
		if err != nil {
			return mapErr(op+": "+key, err)
		}
		if len(res) == 2 {
			out.Recounted += res[0]
			out.Left += res[1]
		}
		return nil
	})
	return out, err
}

// PrimaryRunIDs identifies the Redis primary processes behind the client:
// INFO server's run_id, and on a Cluster every master's, by address, sorted.
// A change between two calls means a primary was replaced (failover,
// restart).
func (p *Provisioner) PrimaryRunIDs(ctx context.Context) (string, error) {
	runID := func(ctx context.Context, c *redis.Client) (string, error) {
		info, err := c.Info(ctx, "server").Result()
		if err != nil {
			return "", err
		}
		for _, line := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "run_id:"); ok {
				return v, nil
			}
		}
		return "", fmt.Errorf("INFO server has no run_id")
	}
	switch c := p.c.(type) {
	case *redis.Client:
		id, err := runID(ctx, c)
		if err != nil {
			return "", mapErr("primary run id", err)
		}
		return id, nil
	case *redis.ClusterClient:
		var mu sync.Mutex
		var ids []string
		err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			id, err := runID(ctx, m)
			if err != nil {
				return err
			}
			mu.Lock()
			ids = append(ids, m.Options().Addr+"="+id)
			mu.Unlock()
			return nil
		})
		if err != nil {
			return "", mapErr("primary run ids", err)
		}
		sort.Strings(ids)
		return strings.Join(ids, ","), nil
	default:
		return "", fmt.Errorf("primary run id: unsupported Redis client %T", p.c)
	}
}
