package node

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/persistence"
)

// Options configures a Node.
type Options struct {
	Store  persistence.Store
	Rules  model.Config
	NodeID string
	Logger *slog.Logger
	// Now is the node's clock (the host's one clock). Default time.Now.
	Now func() time.Time
	// StoreTimeout bounds the round VerifyStore runs and the deregistration
	// of Leave. Default 2.5 s.
	StoreTimeout time.Duration
	// TrustEmptyStore: a store with no instance marker is a new deployment,
	// granted at once (store.trust-empty-store).
	TrustEmptyStore bool
	// Metrics, if set, counts store-loss detections and node conflicts.
	Metrics Metrics

	// ClusterView returns this node's advertised cluster address and the
	// addresses of the cluster members it currently sees (itself included).
	// Nil means cluster.provider single: the node's cluster is itself only.
	ClusterView func() (self string, members []string)
	// ClusterName and ClusterProvider are registered for the other nodes'
	// log lines and health (provider default "single").
	ClusterName, ClusterProvider string
	// ClusterSettle is how long the provider may take to list a member that
	// just started; it is added to the conflict grace, and it is the rejoin
	// gate's settle window (gate.go). Default: 5 s.
	ClusterSettle time.Duration

	// Groups is the host's side: the group actors running on this node.
	// Default: none (nothing to tell or release).
	Groups Groups
	// Cluster is the actor cluster this node is a member of; nil in single
	// mode.
	Cluster Cluster
}

// Metrics receives node-level counts; implementations must be cheap and safe
// for concurrent use.
type Metrics interface {
	// StateLost counts one detection of store data loss.
	StateLost()
	// NodeConflicts reports, after every node renewal, how many nodes share
	// the store without being members of this node's cluster (past the
	// grace) and whether this node refuses to serve because of them.
	NodeConflicts(peers int, refusing bool)
	// StoreReadOnly counts one renewal of this node's record that the store
	// refused because it takes no writes (Redis READONLY, NOREPLICAS).
	StoreReadOnly()
}

// Groups is what the node asks of the host that runs its group actors. The
// host keeps their PIDs (it spawns and forwards to them); the node only
// reaches them through it. Implementations must be safe for concurrent use.
type Groups interface {
	// Broadcast sends msg to every group actor running on this node.
	Broadcast(msg any)
	// Started and Stopped are groupdeps.Node's GroupStarted and GroupStopped:
	// the host records or forgets the group's PID.
	Started(key persistence.GroupKey, self *actor.PID)
	Stopped(key persistence.GroupKey, self *actor.PID)
	// Release gives up every group activation of the node in the background
	// (it refuses to serve). Called every round while the node refuses.
	Release()
}

// Cluster is what the node asks of the actor cluster it is a member of.
type Cluster interface {
	// MemberID is this node's id in the cluster's member list.
	MemberID() string
	// Blocked lists the member ids this node has evicted, sorted.
	Blocked() []string
	// Leaving reports whether this node is leaving the cluster (stopping).
	Leaving() bool
	// PlacementMoved is groupdeps.Node.PlacementMoved.
	PlacementMoved() bool
	// Placement is what this node's member list says about key (the rejoin
	// gate, placement.go).
	Placement(key persistence.GroupKey) Placement
	// Evicted is called once when the node finds it was evicted: stop the
	// local group actors and tell the process.
	Evicted(reason string)
}

// LeavingReason is Refusing's answer while the node leaves the cluster;
// peers recognise a leaving node by it.
const LeavingReason = "this node is shutting down and handing its groups over"

// Node is this process's node: its record in the store, its registry view,
// its holds. It implements groupdeps.Node.
type Node struct {
	opts  Options
	owner string

	ren  renewal
	loss lossState
	reg  *registry
	gate rejoinGate // groups refused while member lists converge (placement.go)

	evicted        atomic.Bool // read on every request (RefusingRequests): no lock
	blockedLeaving atomic.Bool // peers blocked this node while it was leaving (logged once)
}

var _ groupdeps.Node = (*Node)(nil)

// New builds a node with a new incarnation; Round renews its record.
func New(opts Options) *Node {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.StoreTimeout <= 0 {
		opts.StoreTimeout = 2500 * time.Millisecond
	}
	if opts.Groups == nil {
		opts.Groups = noGroups{}
	}
	n := &Node{opts: opts, owner: persistence.OwnerName(opts.NodeID, newIncarnation())}
	n.ren.ttl = opts.Rules.LeaseTTL + opts.Rules.HeartbeatInterval
	n.reg = newRegistry(n)
	return n
}

func newIncarnation() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Owner is this node incarnation's name in the store ("nodeId/incarnation").
func (n *Node) Owner() string { return n.owner }

// lease is one lease TTL plus one heartbeat interval: how long a hold lasts.
func (n *Node) lease() time.Duration { return n.opts.Rules.LeaseTTL + n.opts.Rules.HeartbeatInterval }

// Refusing returns why this node must not host a group now ("" if it may):
// it refuses requests (RefusingRequests), or it is leaving its cluster.
func (n *Node) Refusing() string {
	if why := n.RefusingRequests(); why != "" {
		return why
	}
	if c := n.opts.Cluster; c != nil && c.Leaving() {
		return LeavingReason
	}
	return ""
}

// RefusingRequests returns why this node answers no request now ("" if it
// does): evicted, or sharing its store with a node outside its cluster. A
// node that is leaving still forwards requests to the other nodes.
func (n *Node) RefusingRequests() string {
	if n.evicted.Load() {
		return "this node was evicted from the cluster and is exiting"
	}
	if !n.reg.refusing.Load() {
		return ""
	}
	return n.reg.reason()
}

// GroupStarted tells the host a group actor started (groupdeps.Node).
func (n *Node) GroupStarted(key persistence.GroupKey, self *actor.PID) {
	n.opts.Groups.Started(key, self)
}

// GroupStopped tells the host a group actor stopped for good (groupdeps.Node).
func (n *Node) GroupStopped(key persistence.GroupKey, self *actor.PID) {
	n.opts.Groups.Stopped(key, self)
}

// StateLost holds every group's grants for a lease and the interval a member
// may wait before its next heartbeat (groupdeps.Node).
func (n *Node) StateLost(reason string) {
	n.stateLost(groupdeps.LossStoreBehind, reason, n.opts.Now().Add(n.lease()))
}

// VerifyStore runs a round now, before a group without stored state is
// served (groupdeps.Node). An error (the store did not answer) means the node
// cannot tell a new group from one the store lost: the activation must not
// go on.
func (n *Node) VerifyStore() error { return n.verify() }

// PlacementMoved reports whether the cluster recently gained a node
// (groupdeps.Node); false in single mode.
func (n *Node) PlacementMoved() bool {
	return n.opts.Cluster != nil && n.opts.Cluster.PlacementMoved()
}

// PlacedElsewhere reports why this node must not activate key now, and
// whether its own list places key elsewhere (groupdeps.Node; "" in single
// mode): placement.go.
func (n *Node) PlacedElsewhere(key persistence.GroupKey) (string, bool) {
	return n.placedElsewhere(key)
}

// noGroups is Options.Groups when none is given.
type noGroups struct{}

func (noGroups) Broadcast(any)                            {}
func (noGroups) Started(persistence.GroupKey, *actor.PID) {}
func (noGroups) Stopped(persistence.GroupKey, *actor.PID) {}
func (noGroups) Release()                                 {}
