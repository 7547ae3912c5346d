package groupdeps

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
	// PlacedElsewhere returns why this node must not activate the group now
	// ("" when it may): the rejoin gate (actors/node/gate.go). elsewhere:
	// this node's own member list places the group on another node — the
	// grain answers RETRY and stops, so that callers look the group up again;
	// otherwise (its activation is live on a reachable node that has not
	// handed it over yet) the grain answers RETRY and waits, dormant.
	PlacedElsewhere(key persistence.GroupKey) (why string, elsewhere bool)
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
func (NopNode) PlacedElsewhere(persistence.GroupKey) (string, bool)            { return "", false }

// NewDataSet is what a node knows about a store data set that is younger
// than one lease (docs/RELIABILITY.md, "A new data set"): Redis held no
// coordinator state when the data set was created, either because the
// deployment is new or because Redis lost everything while no coordinator
// ran. The two are told apart per group, from what members of an earlier
// data set would leave behind:
//
//   - a member still heartbeating reports itself within one heartbeat
//     interval of the coordinator answering (the protocol's heartbeat timing
//     rule: each attempt bounded to the interval, the next one started at the
//     latest one interval after the previous one; the SDK follows it):
//     a group activated in a young data set grants nothing for QuietWait from
//     its activation (the first request that reached it), and
//     until Until a member reporting an epoch and shards this group never had
//     holds the group for a lease, even if other members joined already;
//   - a member still reading a shard stream that survived shows as a Redis
//     consumer of the group active within one lease + interval (XINFO
//     CONSUMERS idle time): such a group is held for a lease.
//
// Zero value: the data set is not young (nothing to wait for).
type NewDataSet struct {
	Until time.Time // created + lease TTL + heartbeat interval
}

// Kinds of store data loss a group reports (Node.GroupStateLost, Node.StateLost);
// the host's own are in actors/host. Logged and shown in health as "case".
const (
	// LossMemberClaims: a member reports an epoch and shards the group never had.
	LossMemberClaims = "member-reports-unknown-shards"
	// LossActiveReaders: a new group of a young data set has Redis consumers
	// active on its shard streams.
	LossActiveReaders = "readers-of-an-earlier-data-set"
	// LossStoreBehind: a write found the store older than the activation.
	LossStoreBehind = "store-behind-activation"
)

// Metrics receives what the shell measures. Implementations must be cheap
// and safe for concurrent use.
type Metrics interface {
	Heartbeat(status string, d time.Duration)
	Persist(d time.Duration, err error)
	MemberExpired()
	MemberFenced()
	// Activated and Passivated count group activations and passivations.
	Activated()
	Passivated()
	// Members reports how many members of the group are in each state,
	// after every durable change of the group; nil counts: group gone.
	Members(key persistence.GroupKey, counts map[string]int)
	// LimitRejected counts one request refused by the limit named by its
	// config key (e.g. "limits.members-per-group").
	LimitRejected(limit string)
	// RetainedTrimmed counts expired/fenced members dropped before their
	// retention ended because of limits.retained-members-per-group.
	RetainedTrimmed(n int)
}

// IdentityMetrics is implemented by a Metrics that counts identity refusals. Optional: the
// group actor asks for it with a type assertion, so that a Metrics without it still works.
type IdentityMetrics interface {
	// MemberIDConflict counts one new (member id, incarnation) refused with MEMBER_ID_IN_USE
	// (rsc_member_id_conflicts_total); the heartbeats of a retrying duplicate count once.
	MemberIDConflict()
	// PrincipalRefused counts one new (member id, principal) refused because another
	// principal joined the member (rsc_member_principal_refusals_total).
	PrincipalRefused()
}

// FenceMetrics is implemented by a Metrics that counts shard fence writes
// (rsc_shard_fence_writes_total{op}). Optional, like IdentityMetrics.
type FenceMetrics interface {
	// FenceWrites counts fence writes that landed: set named a new holder,
	// clear left the shard with none.
	FenceWrites(set, clear int)
}

// Nudger pushes a nudge (docs/PROTOCOL.md, "Nudges") to a mailbox member's reply list: heartbeat
// now, shards may be given to you. Implemented by mailbox.Nudger; plain strings only, so that
// the transport needs nothing from actors/. principal is the member's principal ("" when
// member authentication was off). It must not block: a nudge that cannot be sent soon is
// dropped (the member heartbeats at its interval as over HTTP).
type Nudger interface {
	Nudge(streamPrefix, consumerGroup, memberID, principal string)
}
