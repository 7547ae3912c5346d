package node

import (
	"log/slog"
	"time"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
)

// newDataSet records that the store's data set was created at created with
// no coordinator state before it (no instance marker): a new deployment, or
// a Redis that lost everything while no coordinator ran. Nothing is held
// node-wide: until one lease + interval after created, each group activated
// waits one heartbeat interval before its first grant and checks its shard
// streams for members of an earlier data set (groupdeps.NewDataSet,
// docs/RELIABILITY.md "A new data set").
func (n *Node) newDataSet(created time.Time, why string) {
	ds := groupdeps.NewDataSet{Until: created.Add(n.lease())}
	n.loss.mu.Lock()
	n.loss.dataSet = ds
	n.loss.mu.Unlock()
	if !n.opts.Now().Before(ds.Until) {
		return
	}
	n.opts.Logger.Info("new coordinator data set in Redis ("+why+"): a new deployment, or a Redis that lost its data while no coordinator ran; "+
		"each group grants about one heartbeat interval after its first request, unless a member of an earlier data set reports itself or the group's shard streams show Redis consumers active within one lease (then that group is held for a lease, logged as a data loss)",
		slog.Time("checkedUntil", ds.Until))
}

// DataSet returns the young data set, while it is young (groupdeps.Node).
func (n *Node) DataSet() groupdeps.NewDataSet {
	n.loss.mu.Lock()
	defer n.loss.mu.Unlock()
	if !n.opts.Now().Before(n.loss.dataSet.Until) {
		return groupdeps.NewDataSet{}
	}
	return n.loss.dataSet
}
