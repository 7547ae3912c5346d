package host

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/redisstream/coordinator/persistence"
)

// sweep activates the groups of the live-group index that no node holds
// (owner released, owner's node record gone, or an earlier incarnation of
// this node): their members may have died while nobody hosted the group, and
// only an activation expires them (after a full lease: activation gives
// every member a fresh one). A swept group whose members are all gone then
// passivates again. Cost: O(groups with live members), never O(groups).
func (h *Host) sweep(ctx context.Context) {
	if h.node.HoldsSweep() {
		return // this node activates no group while it refuses (or may refuse) to serve (actors/node)
	}
	keys, err := h.opts.Store.Orphans(ctx, h.opts.NodeID)
	if err != nil {
		h.opts.Logger.Warn("group sweep could not list groups with live members; next sweep retries", slog.Any("err", err))
		return
	}
	n := 0
	var touch []persistence.GroupKey
	for _, k := range keys {
		if _, ok := h.router.Active(k); ok {
			continue
		}
		if h.router.Clustered() {
			touch = append(touch, k)
		} else {
			h.router.PID(k)
		}
		n++
	}
	h.touchAll(touch)
	if n > 0 {
		h.opts.Logger.Info("sweep activated groups with live members that no node held", slog.Int("groups", n))
		if h.opts.NodeMetrics != nil {
			h.opts.NodeMetrics.SweepActivations(n)
		}
	}
}

func (h *Host) sweepLoop() {
	every := h.opts.SweepInterval
	// Jitter, so that nodes started together do not sweep together.
	first := every/2 + time.Duration(rand.Int64N(int64(every/2)+1))
	t := time.NewTimer(first)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), h.opts.RequestTimeout)
			h.sweep(ctx)
			cancel()
			t.Reset(every)
		}
	}
}

// touchAll activates groups through the cluster, a few at a time: each
// activates where the cluster places it, so the sweep's activations spread
// over the nodes like any others.
func (h *Host) touchAll(keys []persistence.GroupKey) {
	h.eachGroup(keys, func(k persistence.GroupKey) {
		ctx, cancel := context.WithTimeout(context.Background(), h.opts.RequestTimeout)
		defer cancel()
		if err := h.router.Touch(ctx, k); err != nil {
			h.opts.Logger.Debug("sweep could not activate a group; next sweep retries", slog.String("group", k.String()), slog.Any("err", err))
		}
	})
}

// eachGroup runs fn for every key, 8 at a time, and waits for all: asks to
// many groups (activating them where the cluster places them) without
// flooding the node or the cluster.
func (h *Host) eachGroup(keys []persistence.GroupKey, fn func(persistence.GroupKey)) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, 8)
	for _, k := range keys {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			fn(k)
		}()
	}
	wg.Wait()
}
