package memstore

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redisstream/coordinator/persistence"
)

// Call records one Provisioner call.
type Call struct {
	Op           string // "EnsureStreams", "EnsureGroup" or "ShardInfo"
	StreamPrefix string
	Group        string
	From, To     int // for ShardInfo: From = shard, To = shard+1
}

// Provisioner is an in-memory persistence.Provisioner. It keeps a model of
// shard streams and their consumer groups, records every call, and lets tests
// set what ShardInfo reports and inject errors.
type Provisioner struct {
	mu     sync.Mutex
	calls  []Call
	shards map[string]*shard // by stream key
	err    error

	fences   map[fenceKey]persistence.Fence
	fenceLog []FenceEvent
	fenceErr error
	retired  map[string]*shard // retired shard streams by retired key
}

type shard struct {
	length int64
	lastID string
	groups map[string]*persistence.ShardInfo

	// browse model (browse.go)
	entries   []persistence.StreamEntry
	consumers map[string][]persistence.ShardConsumer // by group
	memory    int64                                  // 0: derived from length
}

var _ persistence.Provisioner = (*Provisioner)(nil)

// NewProvisioner returns an empty in-memory provisioner.
func NewProvisioner() *Provisioner {
	return &Provisioner{shards: map[string]*shard{}, fences: map[fenceKey]persistence.Fence{}}
}

// SetError makes every following call fail with err (nil to clear). Wrap a
// sentinel (e.g. persistence.ErrUnavailable) to simulate an outage.
func (p *Provisioner) SetError(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.err = err
}

// Calls returns a copy of the calls so far.
func (p *Provisioner) Calls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Call(nil), p.calls...)
}

// StreamExists reports whether shard stream key exists in the model.
func (p *Provisioner) StreamExists(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.shards[key] != nil
}

// GroupExists reports whether group exists on shard stream key.
func (p *Provisioner) GroupExists(key, group string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	sh := p.shards[key]
	return sh != nil && sh.groups[group] != nil
}

// SetShardInfo overrides what ShardInfo reports for (prefix, group, shard):
// the stream and group are created in the model if missing, and the
// stream/group fields of info are stored (Shard and StreamKey are ignored).
func (p *Provisioner) SetShardInfo(streamPrefix, group string, shardIdx int, info persistence.ShardInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	sh := p.ensureStream(shardKey(streamPrefix, shardIdx))
	sh.length, sh.lastID = info.Length, info.LastGeneratedID
	if group != "" {
		gi := info
		sh.groups[group] = &gi
	}
}

// EnsureStreams implements persistence.Provisioner.
func (p *Provisioner) EnsureStreams(ctx context.Context, streamPrefix string, from, to int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, Call{Op: "EnsureStreams", StreamPrefix: streamPrefix, From: from, To: to})
	if err := p.fail(ctx, "ensure streams "+streamPrefix); err != nil {
		return err
	}
	for i := from; i < to; i++ {
		p.ensureStream(shardKey(streamPrefix, i))
	}
	return nil
}

// EnsureGroup implements persistence.Provisioner.
func (p *Provisioner) EnsureGroup(ctx context.Context, streamPrefix, group string, from, to int) error {
	return p.ensureGroup(ctx, "EnsureGroup", streamPrefix, group, from, to, true)
}

// EnsureGroupOnExisting implements persistence.Provisioner.
func (p *Provisioner) EnsureGroupOnExisting(ctx context.Context, streamPrefix, group string, from, to int) error {
	return p.ensureGroup(ctx, "EnsureGroupOnExisting", streamPrefix, group, from, to, false)
}

// ensureGroup records the call op and adds the group (reading from the
// start) to shards [from,to), creating missing streams only with mkstream.
func (p *Provisioner) ensureGroup(ctx context.Context, op, streamPrefix, group string, from, to int, mkstream bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, Call{Op: op, StreamPrefix: streamPrefix, Group: group, From: from, To: to})
	if err := p.fail(ctx, "ensure group "+streamPrefix+"/"+group); err != nil {
		return err
	}
	for i := from; i < to; i++ {
		key := shardKey(streamPrefix, i)
		sh := p.shards[key]
		if sh == nil {
			if !mkstream {
				continue
			}
			sh = p.ensureStream(key)
		}
		if sh.groups[group] == nil {
			sh.groups[group] = &persistence.ShardInfo{GroupExists: true, Lag: sh.length, LastDeliveredID: "0-0", EntriesRead: 0}
		}
	}
	return nil
}

// ShardInfo implements persistence.Provisioner.
func (p *Provisioner) ShardInfo(ctx context.Context, streamPrefix, group string, shardIdx int) (persistence.ShardInfo, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, Call{Op: "ShardInfo", StreamPrefix: streamPrefix, Group: group, From: shardIdx, To: shardIdx + 1})
	key := shardKey(streamPrefix, shardIdx)
	if err := p.fail(ctx, "shard info "+key); err != nil {
		return persistence.ShardInfo{}, err
	}
	out := persistence.ShardInfo{Shard: shardIdx, StreamKey: key, Lag: -1, EntriesRead: -1}
	sh := p.shards[key]
	if sh == nil {
		return out, nil
	}
	out.Exists, out.Length, out.LastGeneratedID = true, sh.length, sh.lastID
	if g := sh.groups[group]; g != nil {
		out.GroupExists = true
		out.Pending, out.Lag, out.LastDeliveredID, out.EntriesRead = g.Pending, g.Lag, g.LastDeliveredID, g.EntriesRead
	}
	return out, nil
}

func (p *Provisioner) fail(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w: %w", op, persistence.ErrUnavailable, err)
	}
	if p.err != nil {
		return fmt.Errorf("%s: %w", op, p.err)
	}
	return nil
}

func (p *Provisioner) ensureStream(key string) *shard {
	sh := p.shards[key]
	if sh == nil {
		sh = &shard{lastID: "0-0", groups: map[string]*persistence.ShardInfo{}}
		p.shards[key] = sh
	}
	return sh
}

func shardKey(prefix string, i int) string { return prefix + ":" + strconv.Itoa(i) }

// SetFenceError makes every following SetFences fail with err (nil to
// clear), leaving the other calls alone.
func (p *Provisioner) SetFenceError(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fenceErr = err
}

// SetFences implements persistence.Fences.
func (p *Provisioner) SetFences(ctx context.Context, streamPrefix, group string, updates []persistence.FenceUpdate) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	op := fmt.Sprintf("set %d shard fence(s) of %s/%s", len(updates), streamPrefix, group)
	if len(updates) == 0 {
		return nil
	}
	p.calls = append(p.calls, Call{Op: "SetFences", StreamPrefix: streamPrefix, Group: group})
	if err := p.fail(ctx, op); err != nil {
		return err
	}
	if p.fenceErr != nil {
		return fmt.Errorf("%s: %w", op, p.fenceErr)
	}
	for _, u := range updates {
		if u.Shard < 0 {
			return fmt.Errorf("%s: invalid shard %d", op, u.Shard)
		}
	}
	now := time.Now().UTC()
	for _, u := range updates {
		k := fenceKey{shardKey(streamPrefix, u.Shard), group}
		f, ok := p.fences[k]
		if !ok && u.Base > 0 {
			f.Token = u.Base
		}
		f.Token++
		f.Owner, f.Epoch, f.At = u.Owner, u.Epoch, now
		p.fences[k] = f
		p.fenceLog = append(p.fenceLog, FenceEvent{Stream: k.stream, Group: group, Fence: f})
	}
	return nil
}

// GetFences implements persistence.Fences.
func (p *Provisioner) GetFences(ctx context.Context, streamPrefix, group string, shards []int) ([]persistence.Fence, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	op := fmt.Sprintf("read %d shard fence(s) of %s/%s", len(shards), streamPrefix, group)
	if err := p.fail(ctx, op); err != nil {
		return nil, err
	}
	out := make([]persistence.Fence, len(shards))
	for i, s := range shards {
		if s < 0 {
			return nil, fmt.Errorf("%s: invalid shard %d", op, s)
		}
		out[i] = p.fences[fenceKey{shardKey(streamPrefix, s), group}]
	}
	return out, nil
}

// Fence returns one fence of the model (test helper).
func (p *Provisioner) Fence(streamPrefix, group string, shardIdx int) persistence.Fence {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fences[fenceKey{shardKey(streamPrefix, shardIdx), group}]
}

// FenceEvent is one fence write, in order.
type FenceEvent struct {
	Stream, Group string
	persistence.Fence
}

// FenceLog returns every fence write so far, in order.
func (p *Provisioner) FenceLog() []FenceEvent {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]FenceEvent(nil), p.fenceLog...)
}

type fenceKey struct{ stream, group string }
