package host

// notePlacementMove records when the member list gained a member (called by
// onTopology with h.cl.mu held): the cluster then places some groups on the
// new member, whose activations fence this node's. That is a normal move, not
// a duplicate activation (group.Node.PlacementMoved).
func (h *Host) notePlacementMove(prev, next []memberView) {
	known := make(map[string]bool, len(prev))
	for _, m := range prev {
		known[m.ID] = true
	}
	for _, m := range next {
		if !known[m.ID] {
			h.cl.joinedAt = h.opts.Now()
			return
		}
	}
}

// placementMoved reports whether a member joined within the last lease TTL +
// heartbeat interval: a group this node activated before the join may have
// been activated again on the new member meanwhile.
func (h *Host) placementMoved() bool {
	h.cl.mu.Lock()
	defer h.cl.mu.Unlock()
	return !h.cl.joinedAt.IsZero() && h.opts.Now().Sub(h.cl.joinedAt) < h.opts.Rules.LeaseTTL+h.opts.Rules.HeartbeatInterval
}
