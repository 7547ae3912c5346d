package service

import (
	"log/slog"
	"time"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/node"
	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/actors/wire"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard/driver"
)

// Options configures a Service. Store, Provisioner, Router, Node, Reshard
// and Cluster are required.
type Options struct {
	Store       persistence.Store
	Provisioner persistence.Provisioner
	Rules       model.Config
	NodeID      string
	Logger      *slog.Logger
	// Metrics, if set, counts requests refused by a limit.
	Metrics LimitMetrics
	// Now is the node's one clock. Default time.Now.
	Now func() time.Time
	// DefaultShardCount is used when a stream is created without a count.
	DefaultShardCount int
	// RequestTimeout bounds one request to a group actor.
	RequestTimeout time.Duration
	// EmbeddedRedis marks a development store (shown by health).
	EmbeddedRedis bool
	// Limits are the service's own limits and group creation mode (creation.go).
	Limits Limits
	// MigrationHistory is how many finished migrations a stream keeps
	// (resharding.history).
	MigrationHistory int

	Router  *router.Router
	Node    *node.Node
	Reshard *driver.Driver
	Cluster ClusterViews
}

// LimitMetrics counts requests refused by a limit (groupdeps.Metrics has it).
type LimitMetrics interface {
	// LimitRejected counts one request refused by the limit named by its
	// config key.
	LimitRejected(limit string)
}

// ClusterViews is what the service shows of the node's actor system and
// cluster; the host implements it.
type ClusterViews interface {
	// NodeInfo is this node's part of the cluster view, built from the
	// states of its group activations.
	NodeInfo(states []*groupmsg.DebugState) *wire.NodeInfo
	// Nodes asks every cluster member for its part (self: this node's,
	// already built), waiting at most timeout, sorted by address; cluster
	// mode only. A member that does not answer is listed with why.
	Nodes(self *wire.NodeInfo, timeout time.Duration) []*wire.NodeInfo
	// Health is this node's view of the cluster (nil in single mode).
	Health() *protocol.ClusterHealth
	// LoopAlive checks within timeout that the actor system processes
	// messages.
	LoopAlive(timeout time.Duration) error
}

// Service implements coordinator.Service: one value composed of a type per
// use.
type Service struct {
	Membership
	Admin
	Monitor
	Browser
	Debugger
}

var _ coordinator.Service = (*Service)(nil)

// Membership is coordinator.Members: heartbeats and producer routing.
type Membership struct{ *core }

// Admin is coordinator.Admin: streams, groups, resharding.
type Admin struct{ *core }

// Monitor is coordinator.Monitoring: health and read-only views.
type Monitor struct{ *core }

// Browser is coordinator.Browse: what Redis holds for a stream.
type Browser struct{ *core }

// Debugger is coordinator.Debug: live actor state.
type Debugger struct{ *core }

// core is what every use shares: the options and the node's group creation
// state.
type core struct {
	opts   Options
	router *router.Router
	node   *node.Node
	rs     *driver.Driver
	views  ClusterViews

	creating chan struct{}         // one slot: group creations on this node run one at a time
	full     map[string]fullStream // streams at limits.groups-per-stream; guarded by the creating slot
}

// New builds the service of one node.
func New(o Options) *Service {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 5 * time.Second
	}
	if o.DefaultShardCount <= 0 {
		o.DefaultShardCount = 4
	}
	c := &core{opts: o, router: o.Router, node: o.Node, rs: o.Reshard, views: o.Cluster,
		creating: make(chan struct{}, 1), full: map[string]fullStream{}}
	return &Service{Membership{c}, Admin{c}, Monitor{c}, Browser{c}, Debugger{c}}
}
