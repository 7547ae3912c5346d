package router

import (
	"sort"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/persistence"
)

// HostedGroup is one group whose activation runs on this node, as its own
// state tells: the shard count of its stream and how many shards are in no
// member's current assignment; PausedSince: when an operator paused its
// rebalancing (zero: active).
type HostedGroup struct {
	Key        persistence.GroupKey
	ShardCount int
	Unowned    int
	// Revoking and Waiting: groupmsg.SampleReply.
	Revoking, Waiting int
	PausedSince       time.Time
}

// HostedGroups asks every group activation on this node for its state, all
// at once (one timeout for the whole view), sorted by group. It reads
// nothing from the store and reaches no other node: a passivated group, or
// one hosted elsewhere, is not listed, so across a cluster every active
// group is listed by exactly one node. failed are the activations that did
// not answer within timeout (stopping, or busy), left out of out.
func (r *Router) HostedGroups(timeout time.Duration) (out []HostedGroup, failed []persistence.GroupKey) {
	keys := r.ActiveKeys()
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
		if pid, ok := r.Active(k); ok {
			asks = append(asks, ask{k, r.o.System.Root.RequestFuture(pid, &groupmsg.SampleRequest{}, timeout)})
		}
	}
	out = make([]HostedGroup, 0, len(asks))
	for _, q := range asks {
		res, err := q.f.Result()
		r, ok := res.(*groupmsg.SampleReply)
		if err != nil || !ok || r.Err != nil {
			failed = append(failed, q.key)
			continue
		}
		out = append(out, HostedGroup{Key: q.key, ShardCount: r.ShardCount, Unowned: r.Unowned, Revoking: r.Revoking, Waiting: r.Waiting, PausedSince: r.PausedSince})
	}
	return out, failed
}

// LocalDebug asks every group actor on this node for its live state, all at
// once (one timeout for the whole view), sorted by group; an actor that does
// not answer is listed with why. A timeout of 0 or less is 1 ms.
func (r *Router) LocalDebug(timeout time.Duration) []*groupmsg.DebugState {
	timeout = max(timeout, time.Millisecond) // a negative one would wait for ever
	keys := r.ActiveKeys()
	sort.Slice(keys, func(i, j int) bool { return keys[i].Less(keys[j]) })
	type ask struct {
		key persistence.GroupKey
		pid *actor.PID
		f   *actor.Future
	}
	var asks []ask
	for _, k := range keys {
		if pid, ok := r.Active(k); ok {
			asks = append(asks, ask{k, pid, r.o.System.Root.RequestFuture(pid, &groupmsg.DebugRequest{}, timeout)})
		}
	}
	out := make([]*groupmsg.DebugState, 0, len(asks))
	for _, q := range asks {
		res, err := q.f.Result()
		if err != nil {
			out = append(out, &groupmsg.DebugState{Group: q.key.String(), NodeID: r.o.NodeID, Actor: q.pid.String(), LastError: "not answering: " + err.Error()})
			continue
		}
		if d, ok := res.(*groupmsg.DebugState); ok {
			out = append(out, d)
		}
	}
	return out
}
