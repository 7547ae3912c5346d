package memstore

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/redisstream/coordinator/persistence"
)

// AddEntries appends entries to shard stream {prefix}:{shard} (created if
// missing), as XADD would: an empty ID is given the next "n-0" id; ids must
// increase. Length and last-generated-id follow.
func (p *Provisioner) AddEntries(streamPrefix string, shardIdx int, entries ...persistence.StreamEntry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	sh := p.ensureStream(shardKey(streamPrefix, shardIdx))
	for _, e := range entries {
		if e.ID == "" {
			ms, _, _ := strings.Cut(sh.lastID, "-")
			n, _ := strconv.ParseUint(ms, 10, 64)
			e.ID = strconv.FormatUint(n+1, 10) + "-0"
		}
		if compareIDs(e.ID, sh.lastID) <= 0 {
			panic(fmt.Sprintf("memstore: entry id %s not after %s", e.ID, sh.lastID))
		}
		sh.entries = append(sh.entries, e)
		sh.length++
		sh.lastID = e.ID
	}
}

// SetConsumers sets the Redis consumers ShardOffsets reports for group on a shard.
func (p *Provisioner) SetConsumers(streamPrefix, group string, shardIdx int, consumers ...persistence.ShardConsumer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	sh := p.ensureStream(shardKey(streamPrefix, shardIdx))
	if sh.consumers == nil {
		sh.consumers = map[string][]persistence.ShardConsumer{}
	}
	sh.consumers[group] = append([]persistence.ShardConsumer(nil), consumers...)
}

// SetMemoryUsage sets the MEMORY USAGE ShardOffsets reports for a shard
// (default: 100 bytes plus 50 per entry).
func (p *Provisioner) SetMemoryUsage(streamPrefix string, shardIdx int, bytes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ensureStream(shardKey(streamPrefix, shardIdx)).memory = bytes
}

// ShardOffsets implements persistence.Provisioner.
func (p *Provisioner) ShardOffsets(ctx context.Context, streamPrefix, group string, shards []int) ([]persistence.ShardOffsets, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, Call{Op: "ShardOffsets", StreamPrefix: streamPrefix, Group: group})
	op := "shard offsets " + streamPrefix + "/" + group
	if err := p.fail(ctx, op); err != nil {
		return nil, err
	}
	out := make([]persistence.ShardOffsets, len(shards))
	for i, s := range shards {
		if s < 0 {
			return nil, fmt.Errorf("%s: invalid shard %d", op, s)
		}
		key := shardKey(streamPrefix, s)
		o := persistence.ShardOffsets{
			ShardInfo:   persistence.ShardInfo{Shard: s, StreamKey: key, Lag: -1, EntriesRead: -1},
			Consumers:   []persistence.ShardConsumer{},
			MemoryUsage: -1,
		}
		if sh := p.shards[key]; sh != nil {
			o.Exists, o.Length, o.LastGeneratedID = true, sh.length, sh.lastID
			if g := sh.groups[group]; g != nil {
				o.GroupExists = true
				o.Pending, o.Lag, o.LastDeliveredID, o.EntriesRead = g.Pending, g.Lag, g.LastDeliveredID, g.EntriesRead
				o.Consumers = append(o.Consumers, sh.consumers[group]...)
				sort.Slice(o.Consumers, func(a, b int) bool { return o.Consumers[a].Name < o.Consumers[b].Name })
			}
			o.MemoryUsage = sh.memory
			if o.MemoryUsage == 0 {
				o.MemoryUsage = 100 + 50*sh.length
			}
		}
		out[i] = o
	}
	return out, nil
}

// ReadShard implements persistence.Provisioner.
func (p *Provisioner) ReadShard(ctx context.Context, streamPrefix string, shardIdx int, after string, count int) ([]persistence.StreamEntry, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := shardKey(streamPrefix, shardIdx)
	p.calls = append(p.calls, Call{Op: "ReadShard", StreamPrefix: streamPrefix, From: shardIdx, To: shardIdx + 1})
	op := "read shard " + key
	if err := p.fail(ctx, op); err != nil {
		return nil, false, err
	}
	if shardIdx < 0 || count < 1 {
		return nil, false, fmt.Errorf("%s: invalid shard %d or count %d", op, shardIdx, count)
	}
	if err := persistence.CheckStreamCursor(after); err != nil {
		return nil, false, fmt.Errorf("%s: %w", op, err)
	}
	out := []persistence.StreamEntry{}
	sh := p.shards[key]
	if sh == nil {
		return out, false, nil
	}
	for _, e := range sh.entries {
		if after != "-" && compareIDs(e.ID, after) <= 0 {
			continue
		}
		if len(out) == count {
			return out, true, nil
		}
		f := make(map[string]string, len(e.Fields))
		for k, v := range e.Fields {
			f[k] = v
		}
		out = append(out, persistence.StreamEntry{ID: e.ID, Fields: f})
	}
	return out, false, nil
}

// compareIDs orders stream ids "ms" / "ms-seq" ("ms" = "ms-0").
func compareIDs(a, b string) int {
	am, as := splitID(a)
	bm, bs := splitID(b)
	switch {
	case am != bm:
		return cmpU(am, bm)
	default:
		return cmpU(as, bs)
	}
}

func splitID(id string) (uint64, uint64) {
	ms, seq, _ := strings.Cut(id, "-")
	m, _ := strconv.ParseUint(ms, 10, 64)
	s, _ := strconv.ParseUint(seq, 10, 64)
	return m, s
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
