package host

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"
)

// sweep activates the groups of the live-group index that no node holds
// (owner released, owner's node record gone, or an earlier incarnation of
// this node): their members may have died while nobody hosted the group, and
// only an activation expires them (after a full lease: activation gives
// every member a fresh one). A swept group whose members are all gone then
// passivates again. Cost: O(groups with live members), never O(groups).
func (h *Host) sweep(ctx context.Context) {
	if h.reg.holdSweep() {
		return // this node activates no group while it refuses (or may refuse) to serve (registry.go)
	}
	keys, err := h.opts.Store.Orphans(ctx, h.opts.NodeID)
	if err != nil {
		h.opts.Logger.Warn("group sweep could not list groups with live members; next sweep retries", slog.Any("err", err))
		return
	}
	n := 0
	for _, k := range keys {
		if _, ok := h.active(k); ok {
			continue
		}
		h.pid(k)
		n++
	}
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
