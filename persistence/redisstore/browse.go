package redisstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/persistence"
)

// offsetsBatch is how many shards one ShardOffsets pipeline asks about (four
// commands each), so that a stream of thousands of shards is read in a few
// round trips without one huge reply.
const offsetsBatch = 64

// ShardOffsets implements persistence.Provisioner: per shard, XINFO STREAM,
// XINFO GROUPS, XINFO CONSUMERS and MEMORY USAGE, pipelined. The reads are
// not atomic with each other: a shard written meanwhile may show a length
// and a lag of slightly different instants.
func (p *Provisioner) ShardOffsets(ctx context.Context, streamPrefix, group string, shards []int) ([]persistence.ShardOffsets, error) {
	op := fmt.Sprintf("shard offsets %s/%s", streamPrefix, group)
	if err := checkCtx(ctx, op); err != nil {
		return nil, err
	}
	for _, s := range shards {
		if s < 0 {
			return nil, fmt.Errorf("%s: invalid shard %d", op, s)
		}
	}
	out := make([]persistence.ShardOffsets, 0, len(shards))
	for start := 0; start < len(shards); start += offsetsBatch {
		end := min(start+offsetsBatch, len(shards))
		batch, err := p.offsetsBatch(ctx, op, streamPrefix, group, shards[start:end])
		if err != nil {
			return nil, err
		}
		out = append(out, batch...)
	}
	return out, nil
}

func (p *Provisioner) offsetsBatch(ctx context.Context, op, streamPrefix, group string, shards []int) ([]persistence.ShardOffsets, error) {
	type cmds struct {
		stream    *redis.XInfoStreamCmd
		groups    *redis.Cmd
		consumers *redis.XInfoConsumersCmd
		memory    *redis.IntCmd
	}
	pipe := p.c.Pipeline()
	all := make([]cmds, len(shards))
	for i, s := range shards {
		key := ShardKey(streamPrefix, s)
		all[i] = cmds{
			stream:    pipe.XInfoStream(ctx, key),
			groups:    pipe.Do(ctx, "XINFO", "GROUPS", key),
			consumers: pipe.XInfoConsumers(ctx, key, group),
			memory:    pipe.MemoryUsage(ctx, key),
		}
	}
	_, _ = pipe.Exec(ctx) // errors are per command, checked below
	out := make([]persistence.ShardOffsets, len(shards))
	for i, s := range shards {
		key := ShardKey(streamPrefix, s)
		o := persistence.ShardOffsets{
			ShardInfo:   persistence.ShardInfo{Shard: s, StreamKey: key, Lag: -1, EntriesRead: -1},
			Consumers:   []persistence.ShardConsumer{},
			MemoryUsage: -1,
		}
		c := all[i]
		xs, err := c.stream.Result()
		if isNoSuchKey(err) {
			out[i] = o
			continue
		}
		if isWrongType(err) {
			return nil, fmt.Errorf("%s: %s: %w", op, key, persistence.ErrWrongKeyType)
		}
		if err != nil {
			return nil, mapErr(op+": "+key, err)
		}
		o.Exists, o.Length, o.LastGeneratedID = true, xs.Length, xs.LastGeneratedID
		res, err := c.groups.Result()
		if isNoSuchKey(err) { // deleted in between
			out[i] = persistence.ShardOffsets{ShardInfo: persistence.ShardInfo{Shard: s, StreamKey: key, Lag: -1, EntriesRead: -1}, Consumers: []persistence.ShardConsumer{}, MemoryUsage: -1}
			continue
		}
		if err != nil {
			return nil, mapErr(op+": "+key, err)
		}
		groups, err := parseXInfoGroups(res)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", op, key, err)
		}
		fillGroup(&o.ShardInfo, groups, group)
		if o.GroupExists {
			cs, err := c.consumers.Result()
			switch {
			case err == nil:
				for _, x := range cs {
					o.Consumers = append(o.Consumers, persistence.ShardConsumer{Name: x.Name, Pending: x.Pending, IdleMs: x.Idle.Milliseconds()})
				}
				sort.Slice(o.Consumers, func(a, b int) bool { return o.Consumers[a].Name < o.Consumers[b].Name })
			case isNoSuchKey(err), isNoGroup(err): // deleted in between: no consumers
			default:
				return nil, mapErr(op+": "+key, err)
			}
		}
		switch n, err := c.memory.Result(); {
		case err == nil:
			o.MemoryUsage = n
		case errors.Is(err, redis.Nil), isRefused(err):
			// unknown: key gone meanwhile, or MEMORY disabled (managed Redis)
		default:
			return nil, mapErr(op+": "+key, err)
		}
		out[i] = o
	}
	return out, nil
}

// ReadShard implements persistence.Provisioner with XRANGE, asking for one
// entry more than count to tell whether more exist. The exclusive start is
// computed here (the id after `after`) rather than with "(" so that it
// works on Redis before 6.2 too.
func (p *Provisioner) ReadShard(ctx context.Context, streamPrefix string, shard int, after string, count int) ([]persistence.StreamEntry, bool, error) {
	key := ShardKey(streamPrefix, shard)
	op := "read shard " + key
	if shard < 0 {
		return nil, false, fmt.Errorf("%s: invalid shard %d", op, shard)
	}
	if count < 1 {
		return nil, false, fmt.Errorf("%s: count %d must be at least 1", op, count)
	}
	if err := persistence.CheckStreamCursor(after); err != nil {
		return nil, false, fmt.Errorf("%s: %w", op, err)
	}
	if err := checkCtx(ctx, op); err != nil {
		return nil, false, err
	}
	start, ok := nextID(after)
	if !ok {
		return []persistence.StreamEntry{}, false, nil // after is the largest id
	}
	msgs, err := p.c.XRangeN(ctx, key, start, "+", int64(count)+1).Result()
	if isWrongType(err) {
		return nil, false, fmt.Errorf("%s: %w", op, persistence.ErrWrongKeyType)
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, false, mapErr(op, err)
	}
	more := len(msgs) > count
	if more {
		msgs = msgs[:count]
	}
	out := make([]persistence.StreamEntry, len(msgs))
	for i, m := range msgs {
		f := make(map[string]string, len(m.Values))
		for k, v := range m.Values {
			f[k] = fmt.Sprint(v)
		}
		out[i] = persistence.StreamEntry{ID: m.ID, Fields: f}
	}
	return out, more, nil
}

// nextID is the smallest entry id strictly after cursor ("-" = "-"): "ms"
// counts as "ms-0". ok is false when cursor is the largest id.
func nextID(cursor string) (string, bool) {
	if cursor == "-" {
		return "-", true
	}
	msS, seqS, _ := strings.Cut(cursor, "-")
	ms, _ := strconv.ParseUint(msS, 10, 64)
	var seq uint64
	if seqS != "" {
		seq, _ = strconv.ParseUint(seqS, 10, 64)
	}
	switch {
	case seq < math.MaxUint64:
		seq++
	case ms < math.MaxUint64:
		ms, seq = ms+1, 0
	default:
		return "", false
	}
	return strconv.FormatUint(ms, 10) + "-" + strconv.FormatUint(seq, 10), true
}

// isWrongType: the key holds another type than the command needs.
func isWrongType(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "WRONGTYPE")
}

func isNoGroup(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOGROUP")
}

// isRefused: the server does not know or does not allow the command.
func isRefused(err error) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	return strings.HasPrefix(msg, "noperm") || strings.Contains(msg, "unknown command")
}
