package host

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/persistence"
)

// groupNode is this node as its group actors see it (group.Node): the one
// interface through which they reach back into the host.
type groupNode struct{ h *Host }

var _ group.Node = groupNode{}

func (n groupNode) Refusing() string { return n.h.refusing() }

func (n groupNode) GroupStarted(key persistence.GroupKey, self *actor.PID) { n.h.register(key, self) }

func (n groupNode) GroupStopped(key persistence.GroupKey, self *actor.PID) { n.h.forget(key, self) }

func (n groupNode) Hold(key persistence.GroupKey) time.Time { return n.h.hold(key) }

// StateLost holds every group's grants for a lease and the interval a member
// may wait before its next heartbeat.
func (n groupNode) StateLost(reason string) {
	r := n.h.opts.Rules
	n.h.stateLost(group.LossStoreBehind, reason, n.h.opts.Now().Add(r.LeaseTTL+r.HeartbeatInterval))
}

func (n groupNode) GroupStateLost(key persistence.GroupKey, kind, reason string, until time.Time) {
	n.h.groupStateLost(key, kind, reason, until)
}

func (n groupNode) VerifyStore() error { return n.h.node.verify() }

func (n groupNode) DataSet() group.NewDataSet { return n.h.dataSet() }

func (n groupNode) PlacementMoved() bool { return n.h.placementMoved() }
