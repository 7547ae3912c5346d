package group

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/persistence"
)

// Node is what a group actor asks of the node it runs on: whether it may run,
// the node's store-loss holds, and what it tells the node back. One Node is
// shared by all group actors of a node; it must be safe for concurrent use.
type Node interface {
	// Refusing returns why this node must not host a group now (shutting
	// down, evicted, sharing its store with a node outside its cluster); ""
	// when it may. A group actor started then stops without activating.
	Refusing() string
	// GroupStarted is called when a group actor starts (also a cluster grain
	// the node did not spawn itself), so the node can reach its local groups.
	GroupStarted(key persistence.GroupKey, self *actor.PID)
	// GroupStopped is called when a group actor stops for good (deleted, or
	// fenced by a newer activation) so the node can forget its PID.
	GroupStopped(key persistence.GroupKey, self *actor.PID)
	// Hold returns until when the group's grants are held because the store
	// lost state: the node-wide hold, or one recorded for this group alone
	// (zero: no hold).
	Hold(key persistence.GroupKey) time.Time
	// StateLost reports that the store was found behind (lost writes); the
	// node holds grants for a lease (see docs/RELIABILITY.md).
	StateLost(reason string)
	// GroupStateLost reports a hold of one group only (kind: LossMemberClaims,
	// LossActiveReaders), until until.
	GroupStateLost(key persistence.GroupKey, kind, reason string, until time.Time)
	// VerifyStore is called before a group with no stored state is served: it
	// checks (one round trip) that the store is the data set the node knows,
	// so that a flush is noticed before a new group hands shards out.
	VerifyStore() error
	// DataSet returns what the node knows about a young store data set (zero
	// if the data set is older than a lease, or store.trust-empty-store).
	DataSet() NewDataSet
	// PlacementMoved reports whether the cluster recently gained a node, so
	// that a newer activation elsewhere is the placement following it (a
	// normal move, logged at INFO) rather than a duplicate (WARN).
	PlacementMoved() bool
}

// NopNode is a Node that never refuses, holds nothing, trusts its store and
// ignores what it is told: the default of Deps.Node (tests, tools).
type NopNode struct{}

func (NopNode) Refusing() string                                               { return "" }
func (NopNode) GroupStarted(persistence.GroupKey, *actor.PID)                  {}
func (NopNode) GroupStopped(persistence.GroupKey, *actor.PID)                  {}
func (NopNode) Hold(persistence.GroupKey) time.Time                            { return time.Time{} }
func (NopNode) StateLost(string)                                               {}
func (NopNode) GroupStateLost(persistence.GroupKey, string, string, time.Time) {}
func (NopNode) VerifyStore() error                                             { return nil }
func (NopNode) DataSet() NewDataSet                                            { return NewDataSet{} }
func (NopNode) PlacementMoved() bool                                           { return false }
