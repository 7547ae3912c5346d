package host

import (
	"sort"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/persistence"
)

// HostedGroup is one group whose activation runs on this node, as its own
// state tells: the shard count of its stream and how many shards are in no
// member's current assignment.
type HostedGroup struct {
	Key        persistence.GroupKey
	ShardCount int
	Unowned    int
}

// HostedGroups asks every group activation on this node for its state, all
// at once (one timeout for the whole view), sorted by group. It reads
// nothing from the store and reaches no other node: a passivated group, or
// one hosted elsewhere, is not listed, so across a cluster every active
// group is listed by exactly one node. failed are the activations that did
// not answer within timeout (stopping, or busy), left out of out.
func (h *Host) HostedGroups(timeout time.Duration) (out []HostedGroup, failed []persistence.GroupKey) {
	keys := h.activeKeys()
	if len(keys) == 0 {
		return nil, nil
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Less(keys[j]) })
	type ask struct {
		key persistence.GroupKey
		f   *actor.Future
	}
	asks := make([]ask, 0, len(keys))
	for _, k := range keys {
		if pid, ok := h.active(k); ok {
			asks = append(asks, ask{k, h.system.Root.RequestFuture(pid, &group.SampleRequest{}, timeout)})
		}
	}
	out = make([]HostedGroup, 0, len(asks))
	for _, q := range asks {
		res, err := q.f.Result()
		r, ok := res.(*group.SampleReply)
		if err != nil || !ok || r.Err != nil {
			failed = append(failed, q.key)
			continue
		}
		out = append(out, HostedGroup{Key: q.key, ShardCount: r.ShardCount, Unowned: r.Unowned})
	}
	return out, failed
}
