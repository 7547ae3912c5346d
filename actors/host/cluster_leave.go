package host

import (
	"log/slog"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/node"
	"github.com/redisstream/coordinator/actors/wire"
)

// leaveCluster hands this node's groups over with as little RETRY as the
// providers allow. protoactor's own graceful shutdown stops answering at once
// while the other nodes still place groups here until their provider notices
// (automanaged: the next health poll, up to 2 s), so members would be told
// RETRY for that long. Instead the node:
//
//  1. refuses new activations and leaves the provider's member list (the
//     health endpoint closes, or the pod labels go), while its groups keep
//     serving whatever reaches them;
//  2. as soon as any peer no longer lists it (that peer now places its
//     groups elsewhere), releases every group with its members' timers, so
//     the new activations need no takeover wait and keep the leases;
//  3. waits until no peer lists it (bounded), answering RETRY for groups
//     placed here meanwhile, then shuts the cluster down.
func (h *Host) leaveCluster() {
	h.cl.mu.Lock()
	h.cl.leaving = true
	h.cl.mu.Unlock()
	h.lib.tracker().leave() // peers stopping with this node: their connection lines are expected
	o := h.opts.Cluster
	start := time.Now()
	if err := o.Provider.Shutdown(true); err != nil {
		h.opts.Logger.Warn("leaving the cluster: the provider did not deregister this node; the others notice when it stops answering",
			slog.Any("err", err))
	}
	h.opts.Logger.Info("leaving the cluster: deregistered; groups keep serving until a peer stops placing them here")
	bound := h.leaveBound()
	if len(h.router.LocalPIDs()) > 0 { // nothing to hand over: no need to wait for a peer to take it
		h.waitPeers(time.Now().Add(bound), false)
	}
	pids := h.router.LocalPIDs()
	h.router.ReleaseAll(pids)
	h.opts.Logger.Info("leaving the cluster: groups handed over", slog.Int("groups", len(pids)),
		slog.Duration("after", time.Since(start).Round(time.Millisecond)))
	h.waitPeers(time.Now().Add(bound), true)
	h.cl.c.Shutdown(false) // the provider already left; no fixed 2 s sleep
	h.opts.Logger.Info("left the cluster", slog.Duration("after", time.Since(start).Round(time.Millisecond)))
}

// leaveBound bounds each wait of a leaving node for its peers: a provider
// refresh plus the automanaged poll timeout, with slack.
func (h *Host) leaveBound() time.Duration { return 5 * time.Second }

// waitPeers polls every peer's member list until one (all=false) or every
// (all=true) peer no longer lists this node, or until deadline. Peers that do
// not answer count as no longer listing it; peers that are leaving themselves
// (they refuse new activations, so they place no group here) do not count, so
// nodes stopped together do not wait for each other.
func (h *Host) waitPeers(deadline time.Time, all bool) {
	self := h.system.Address()
	for time.Now().Before(deadline) {
		peers, dropped := 0, 0
		for _, info := range h.peerInfos(200 * time.Millisecond) {
			if info != nil && info.GetRefusing() == node.LeavingReason {
				continue
			}
			peers++
			if info == nil || !slices.Contains(info.GetMemberAddresses(), self) {
				dropped++
			}
		}
		if peers == 0 || (all && dropped == peers) || (!all && dropped > 0) {
			return
		}
		// Short: a peer that dropped this node may activate one of its groups with its next
		// request; released before that, the new activation needs no takeover wait.
		time.Sleep(20 * time.Millisecond)
	}
}

// peerInfos asks every other member this node knows for its NodeInfo (nil
// for a peer that did not answer within timeout).
func (h *Host) peerInfos(timeout time.Duration) []*wire.NodeInfo {
	self := h.system.Address()
	var futures []*actor.Future
	for _, m := range h.clusterMembers() {
		if m.Address() != self {
			futures = append(futures, h.system.Root.RequestFuture(actor.NewPID(m.Address(), nodeInfoName), &wire.NodeInfoRequest{Light: true}, timeout))
		}
	}
	out := make([]*wire.NodeInfo, len(futures))
	for i, f := range futures {
		if res, err := f.Result(); err == nil {
			out[i], _ = res.(*wire.NodeInfo)
		}
	}
	return out
}
