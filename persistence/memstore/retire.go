package memstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redisstream/coordinator/persistence"
)

// RetireShard implements persistence.Retirer on the model: the shard is
// retired (removed; its key recorded as retired) when every group on it has
// pending 0 and lag 0.
func (p *Provisioner) RetireShard(ctx context.Context, streamPrefix string, shardIdx int, retiredKey string, retention time.Duration) (persistence.Retirement, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := shardKey(streamPrefix, shardIdx)
	p.calls = append(p.calls, Call{Op: "RetireShard", StreamPrefix: streamPrefix, From: shardIdx, To: shardIdx + 1})
	var out persistence.Retirement
	if err := p.fail(ctx, "retire "+key); err != nil {
		return out, err
	}
	sh := p.shards[key]
	if sh == nil {
		_, was := p.retired[retiredKey]
		return persistence.Retirement{Retired: true, Missing: !was}, nil
	}
	for name, g := range sh.groups {
		if g.Pending != 0 || g.Lag != 0 {
			out.Blocked = append(out.Blocked, persistence.GroupBacklog{Group: name, Pending: g.Pending, Lag: g.Lag})
		}
	}
	if len(out.Blocked) > 0 {
		return out, nil
	}
	if p.retired == nil {
		p.retired = map[string]*shard{}
	}
	p.retired[retiredKey] = sh
	delete(p.shards, key)
	out.Retired = true
	return out, nil
}

// RetiredExists reports whether a shard was retired to key.
func (p *Provisioner) RetiredExists(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.retired[key]
	return ok
}

// SeedFences implements persistence.Retirer.
func (p *Provisioner) SeedFences(ctx context.Context, streamPrefix, group string, shards []int, base int64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.fail(ctx, fmt.Sprintf("seed fences of %s/%s", streamPrefix, group)); err != nil {
		return err
	}
	for _, s := range shards {
		k := fenceKey{shardKey(streamPrefix, s), group}
		if _, ok := p.fences[k]; !ok {
			p.fences[k] = persistence.Fence{Token: base}
		}
	}
	return nil
}

// DeleteFences implements persistence.Retirer.
func (p *Provisioner) DeleteFences(ctx context.Context, streamPrefix, group string, shards []int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.fail(ctx, fmt.Sprintf("delete fences of %s/%s", streamPrefix, group)); err != nil {
		return err
	}
	for _, s := range shards {
		delete(p.fences, fenceKey{shardKey(streamPrefix, s), group})
	}
	return nil
}
