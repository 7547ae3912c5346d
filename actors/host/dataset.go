package host

import (
	"log/slog"
	"time"

	"github.com/redisstream/coordinator/actors/group"
)

// newDataSet records that the store's data set was created at created with
// no coordinator state before it (no instance marker): a new deployment, or
// a Redis that lost everything while no coordinator ran. Nothing is held
// node-wide: until one lease + interval after created, each group activated
// waits one heartbeat interval before its first grant and checks its shard
// streams for members of an earlier data set (group.NewDataSet,
// docs/RELIABILITY.md "A new data set").
func (h *Host) newDataSet(created time.Time, why string) {
	ds := group.NewDataSet{Until: created.Add(h.opts.Rules.LeaseTTL + h.opts.Rules.HeartbeatInterval)}
	h.loss.mu.Lock()
	h.loss.dataSet = ds
	h.loss.mu.Unlock()
	if !h.opts.Now().Before(ds.Until) {
		return
	}
	h.opts.Logger.Info("new coordinator data set in Redis ("+why+"): a new deployment, or a Redis that lost its data while no coordinator ran; "+
		"each group grants about one heartbeat interval after its first request, unless a member of an earlier data set reports itself or the group's shard streams show Redis consumers active within one lease (then that group is held for a lease, logged as a data loss)",
		slog.Time("checkedUntil", ds.Until))
}

// dataSet is group.Node.DataSet: the young data set, while it is young.
func (h *Host) dataSet() group.NewDataSet {
	h.loss.mu.Lock()
	defer h.loss.mu.Unlock()
	if !h.opts.Now().Before(h.loss.dataSet.Until) {
		return group.NewDataSet{}
	}
	return h.loss.dataSet
}
