package membersdk

// shardsAssigned calls ConsumerConfig.OnShardsAssigned with the shards whose
// workers reconcile is about to start (sorted), before they start: no
// handler of them has run yet.
func (c *Consumer) shardsAssigned(shards []int) {
	if c.cfg.OnShardsAssigned == nil || len(shards) == 0 {
		return
	}
	c.cfg.OnShardsAssigned(c.cbCtx, append([]int(nil), shards...))
}

// shardsRevoked calls ConsumerConfig.OnShardsRevoked with the shards whose
// workers have exited (workerExited): no handler of them runs any more and
// no XACK of their workers can reach Redis (the ownership token is sealed).
func (c *Consumer) shardsRevoked(shards ...int) {
	if c.cfg.OnShardsRevoked == nil || len(shards) == 0 {
		return
	}
	c.cfg.OnShardsRevoked(c.cbCtx, shards)
}
