package router

import (
	"log/slog"
	"net/url"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/persistence"
)

// The registry of this node's group actors: the local actors of single mode
// and the grains the cluster placed here. Router implements node.Groups with
// Broadcast, Started, Stopped and Release.

// PID returns the group's local actor, spawning (activating) it if needed.
func (r *Router) PID(key persistence.GroupKey) *actor.PID {
	r.mu.Lock()
	defer r.mu.Unlock()
	if pid, ok := r.groups[key]; ok {
		return pid
	}
	props := r.o.Props(key)
	// Names may contain '/' (protocol.ValidateName): escape them so that no two
	// groups share an actor name.
	name := "group/" + url.PathEscape(key.StreamPrefix) + "/" + url.PathEscape(key.ConsumerGroup)
	pid, err := r.o.System.Root.SpawnNamed(props, name)
	if err != nil {
		// The previous activation is still stopping under that name.
		pid = r.o.System.Root.SpawnPrefix(props, name+"#")
	}
	r.groups[key] = pid
	r.reportGroups()
	return pid
}

// Active returns the group's actor only if it already runs on this node.
func (r *Router) Active(key persistence.GroupKey) (*actor.PID, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	pid, ok := r.groups[key]
	return pid, ok
}

// Started records a group actor that started on this node (a grain the
// cluster placed here, or an actor PID spawned).
func (r *Router) Started(key persistence.GroupKey, pid *actor.PID) {
	r.mu.Lock()
	r.groups[key] = pid
	r.reportGroups()
	r.mu.Unlock()
}

// Stopped forgets a group actor that stopped for good, unless the key has
// already been given to a newer actor (nil pid: whatever runs).
func (r *Router) Stopped(key persistence.GroupKey, pid *actor.PID) {
	r.mu.Lock()
	if cur, ok := r.groups[key]; ok && (pid == nil || cur.Equal(pid)) {
		delete(r.groups, key)
	}
	r.reportGroups()
	r.mu.Unlock()
}

// dropDead forgets a group actor that turned out to be gone.
func (r *Router) dropDead(key persistence.GroupKey, pid *actor.PID) {
	r.mu.Lock()
	if r.groups[key] == pid {
		delete(r.groups, key)
	}
	r.mu.Unlock()
}

// Drop stops and forgets a group actor whose creation did not complete.
func (r *Router) Drop(key persistence.GroupKey) {
	r.mu.Lock()
	pid, ok := r.groups[key]
	if ok {
		delete(r.groups, key)
		r.reportGroups()
	}
	r.mu.Unlock()
	if ok {
		r.o.System.Root.Poison(pid)
	}
}

// reportGroups tells the metrics how many group actors run; r.mu is held.
func (r *Router) reportGroups() {
	if r.o.GroupsActive != nil {
		r.o.GroupsActive(len(r.groups))
	}
}

// ActiveKeys lists the groups whose actor runs on this node.
func (r *Router) ActiveKeys() []persistence.GroupKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]persistence.GroupKey, 0, len(r.groups))
	for k := range r.groups {
		keys = append(keys, k)
	}
	return keys
}

// LocalPIDs lists the group actors of this node.
func (r *Router) LocalPIDs() []*actor.PID {
	r.mu.Lock()
	defer r.mu.Unlock()
	pids := make([]*actor.PID, 0, len(r.groups))
	for _, pid := range r.groups {
		pids = append(pids, pid)
	}
	return pids
}

// Clear forgets every group actor of this node and returns their PIDs (the
// node is stopping).
func (r *Router) Clear() []*actor.PID {
	r.mu.Lock()
	defer r.mu.Unlock()
	pids := make([]*actor.PID, 0, len(r.groups))
	for _, pid := range r.groups {
		pids = append(pids, pid)
	}
	r.groups = map[persistence.GroupKey]*actor.PID{}
	return pids
}

// Broadcast sends msg to every group actor of this node.
func (r *Router) Broadcast(msg any) {
	r.mu.Lock()
	for _, pid := range r.groups {
		r.o.System.Root.Send(pid, msg)
	}
	r.mu.Unlock()
}

// ReleaseAll asks each of the group actors pids to release its activation
// and waits for all of them (bounded by the request timeout).
func (r *Router) ReleaseAll(pids []*actor.PID) {
	futures := make([]*actor.Future, len(pids))
	for i, pid := range pids {
		futures[i] = r.o.System.Root.RequestFuture(pid, &groupmsg.ReleaseRequest{}, r.o.RequestTimeout)
	}
	for _, f := range futures {
		_, _ = f.Result()
	}
}

// Release gives up every group activation of this node (as stopping does,
// without stopping the node), in the background: the node round that
// decides to refuse holds the node lock, which group actors need to verify
// the store. Called every round while refusing, so an activation that
// slipped in between a route's check and its spawn is released at the next
// round.
func (r *Router) Release() {
	r.mu.Lock()
	n := len(r.groups)
	r.mu.Unlock()
	if n == 0 || !r.releasing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer r.releasing.Store(false)
		r.mu.Lock()
		keys := make([]persistence.GroupKey, 0, len(r.groups))
		pids := make([]*actor.PID, 0, len(r.groups))
		for k, pid := range r.groups {
			keys, pids = append(keys, k), append(pids, pid)
		}
		r.mu.Unlock()
		r.ReleaseAll(pids)
		for i, pid := range pids {
			// A released actor has stopped itself; one that had not loaded its
			// group yet (nothing to release) is stopped here.
			r.o.System.Root.Stop(pid)
			r.Stopped(keys[i], pid)
		}
		r.o.Logger.Info("released every group activation of this node while it refuses to serve", slog.Int("groups", len(pids)))
	}()
}

// StopAll stops every group actor of this node without releasing it (the
// node was evicted: the new activations elsewhere fence these).
func (r *Router) StopAll() {
	for _, pid := range r.LocalPIDs() {
		r.o.System.Root.Stop(pid)
	}
}
