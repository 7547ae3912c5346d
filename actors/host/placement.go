package host

// notePlacementMove records when the member list gained a member (called by
// onTopology with h.cl.mu held): the cluster then places some groups on the
// new member, whose activations fence this node's. That is a normal move, not
// a duplicate activation (groupdeps.Node.PlacementMoved, nodeSide.PlacementMoved).
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
