package membersdk

import (
	"context"
	"time"

	"github.com/redisstream/coordinator/membersdk/internal/shardworker"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// leave is the graceful shutdown: every shard is revoked (reading stops,
// in-flight handlers get rebalanceTimeoutMs), heartbeats with epoch -1 list
// what is still owned until it is released, then a last heartbeat with epoch
// -1 and nothing owned tells the coordinator the member is gone.
func (c *Consumer) leave(inFlight bool, results chan hbResult) error {
	c.log.Info("leaving the group", "shards", c.ownedIndexes())
	c.emit(Event{Type: EventLeaving, Shards: c.ownedIndexes()})
	ctx := context.Background()
	if inFlight {
		c.applyLeaveAnswer(<-results)
	}
	for _, s := range c.ownedIndexes() {
		if w := c.ls.workers[s]; w.StateNow() == shardworker.StateRunning {
			w.Revoke(c.ls.rebalance)
			c.emit(Event{Type: EventShardRevoking, Shard: s})
		}
	}
	if !c.ls.sentAny {
		c.waitWorkers()
		return nil
	}
	c.ls.rejoin = false
	c.ls.epoch = c.leaveEpoch()
	timer := time.NewTimer(0)
	defer timer.Stop()
	next := c.now()
	reachable := !c.ls.failing
	for len(c.ls.workers) > 0 {
		if now := c.now(); reachable && !now.Before(next) {
			// Progress reports while draining; skipped once the coordinator
			// stops answering so that shutdown is not held up by timeouts.
			r := c.send(ctx, c.buildRequest(), now, 0)
			reachable = r.err == nil
			c.applyLeaveAnswer(r)
			next = c.now().Add(c.ls.interval)
		}
		if reachable {
			timer.Reset(max(next.Sub(c.now()), 0))
		} else {
			timer.Reset(time.Hour)
		}
		select {
		case w := <-c.exits:
			c.workerExited(w)
		case <-timer.C:
		}
	}
	r := c.send(ctx, c.buildRequest(), c.now(), 0)
	if r.err != nil {
		c.log.Warn("final leave heartbeat failed; the coordinator will expire the member after its lease", "error", r.err)
	} else {
		c.log.Info("left the group", "status", r.resp.Status)
	}
	c.emit(Event{Type: EventLeft, Err: r.err, Status: r.resp.Status})
	return nil
}

// leaveEpoch is -2 (temporary leave: the coordinator keeps the shards for
// the next process with this InstanceID) for a static member, else -1.
func (c *Consumer) leaveEpoch() int64 {
	if c.cfg.InstanceID != "" && !c.cfg.FullLeaveOnClose {
		return protocol.EpochTemporaryLeave
	}
	return protocol.EpochLeave
}

// applyLeaveAnswer: while leaving, only fencing matters (stop at once).
func (c *Consumer) applyLeaveAnswer(r hbResult) {
	c.ls.failing = r.err != nil
	if r.err != nil {
		return
	}
	c.updateTiming(r.resp)
	switch r.resp.Status {
	case protocol.StatusUnknownMemberID, protocol.StatusFencedMemberEpoch, protocol.StatusMemberIDInUse:
		for _, w := range c.ls.workers {
			w.Kill()
		}
		c.emit(Event{Type: EventFenced, Status: r.resp.Status})
	}
}
