package host

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/node"
	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/actors/service"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/reshard/driver"
)

// Options configures a Host.
type Options struct {
	Store       persistence.Store
	Provisioner persistence.Provisioner
	Rules       model.Config
	NodeID      string
	Logger      *slog.Logger
	Metrics     groupdeps.Metrics
	// Now is the node's one clock: every deadline the host sets and its group
	// actors check (a request's deadline, store-loss holds, caches) is read
	// from it, here and in group.Deps. Default time.Now. Waits on real timers
	// and sleeps (the local reply wait, leaving a cluster, the reshard
	// driver's store lease) run on the wall clock their timer runs on.
	Now func() time.Time
	// DefaultShardCount is used when a stream is created without a count.
	DefaultShardCount int
	// RequestTimeout bounds one request to a group actor.
	RequestTimeout time.Duration
	// PruneInterval is how often every group drops members kept past retention and
	// re-evaluates every deadline (the safety net for a lost receive-timeout).
	// Default: the lease TTL, at most 30 s.
	PruneInterval time.Duration
	// EmbeddedRedis marks a development store (shown by health).
	EmbeddedRedis bool
	// ServerVersion is reported by the compatibility route.
	ServerVersion string
	// GroupsActive, if set, is told the number of group actors on this
	// node whenever it changes (metrics).
	GroupsActive func(n int)
	// IdlePassivation: a group no member occupies for this long passivates
	// (groups.idle-passivation). Zero: never.
	IdlePassivation time.Duration
	// SweepInterval is how often groups with live members that no node holds
	// are activated (groups.sweep-interval). Default 30s.
	SweepInterval time.Duration
	// TrustEmptyStore: a store with no instance marker is a new deployment,
	// granted at once (store.trust-empty-store). Default false: hold grants
	// for one lease, as after a data loss.
	TrustEmptyStore bool
	// NodeMetrics, if set, counts node-level events.
	NodeMetrics NodeMetrics
	// Nudger, if set, pushes nudges to mailbox members whose assignment can
	// grow (mailbox.Nudger; group.Deps.Nudger). Nil: nobody is nudged.
	Nudger groupdeps.Nudger
	// Limits are the service's own limits and group creation mode
	// (actors/service/creation.go).
	Limits service.Limits
	// Cluster, if set, makes this node a member of an actor host cluster
	// (cluster.go); nil: a single node with no listener.
	Cluster *ClusterOptions

	// Node registry (actors/node): every node registers in the store with its
	// renewal and refuses to serve if an earlier node shares the store
	// without being a member of its cluster.
	//
	// ClusterView returns this node's advertised cluster address and the
	// addresses of the cluster members it currently sees (itself included).
	// Nil means cluster.provider single: the node's cluster is itself only.
	ClusterView func() (self string, members []string)
	// ClusterName and ClusterProvider are registered for the other nodes'
	// log lines and health (provider default "single").
	ClusterName, ClusterProvider string
	// ClusterSettle is how long the provider may take to list a member that
	// just started (member list convergence); it is added to the conflict
	// grace, and it is the rejoin gate's settle window (actors/node/gate.go).
	// Default with a ClusterView: 5 s; without: unused.
	ClusterSettle time.Duration

	// Resharding configures the migration driver (reshard/driver).
	Resharding driver.Options
	// ReshardMetrics, if set, is told of migration state changes.
	ReshardMetrics driver.Metrics
}

// NodeMetrics receives node-level counts; implementations must be cheap and
// safe for concurrent use.
type NodeMetrics interface {
	// StateLost counts one detection of store data loss.
	StateLost()
	// SweepActivations counts groups the sweep activated.
	SweepActivations(n int)
	// NodeConflicts reports, after every node renewal, how many nodes share
	// the store without being members of this node's cluster (past the
	// grace) and whether this node refuses to serve because of them.
	NodeConflicts(peers int, refusing bool)
	// StoreReadOnly counts one renewal of this node's record that the store
	// refused because it takes no writes.
	StoreReadOnly()
}

// Host is one coordinator node: an actor system with a group actor per
// active group, composed with the node's life (actors/node), the router
// (actors/router), the resharding driver and the service (actors/service),
// which Service returns.
type Host struct {
	opts   Options
	deps   *group.Deps
	system *actor.ActorSystem

	router *router.Router // where each group's activation lives (actors/router)

	pinger *actor.PID // answers health checks of the actor loop
	node   *node.Node // this node's life: renewal, registry, holds (nodeside.go)
	lib    *libFilter // the actor system's library-line filter (libfilter.go)

	cl clusterState // cluster mode (cluster.go); zero in single mode

	rs *driver.Driver // resharding driver (reshard_node.go: what it sees of the host)

	svc *service.Service // coordinator.Service of this node (actors/service)

	stopOnce sync.Once
	done     chan struct{}
}

// New builds a host; Start starts it.
func New(opts Options) *Host {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 5 * time.Second
	}
	if opts.PruneInterval <= 0 {
		// The prune tick is also the safety net for a lost member timer: a lost timer
		// delays an expiry by at most one interval, so keep it within one lease.
		opts.PruneInterval = min(30*time.Second, max(opts.Rules.LeaseTTL, time.Second))
	}
	if opts.DefaultShardCount <= 0 {
		opts.DefaultShardCount = 4
	}
	if opts.SweepInterval <= 0 {
		opts.SweepInterval = 30 * time.Second
	}
	opts.Resharding.Defaults()
	if opts.Cluster != nil {
		if opts.ClusterName == "" {
			opts.ClusterName = opts.Cluster.Name
		}
		if opts.ClusterProvider == "" {
			opts.ClusterProvider = opts.Cluster.ProviderName
		}
	}
	logger := opts.Logger
	actorLog := newMinLevel(logger.Handler(), slog.LevelWarn) // one repeat filter for the whole actor system
	actorLog.lib.countInto(opts.NodeMetrics)
	h := &Host{
		opts: opts,
		lib:  actorLog.lib,
		done: make(chan struct{}),
		system: actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
			return slog.New(actorLog).With(slog.String("component", "actor"))
		})),
	}
	if opts.Cluster != nil && h.opts.ClusterView == nil {
		h.opts.ClusterView = h.clusterView
	}
	var metrics router.GrainMetrics
	if opts.Cluster != nil && opts.Cluster.Metrics != nil {
		metrics = opts.Cluster.Metrics
	}
	h.router = router.New(router.Options{
		System: h.system, Props: func(k persistence.GroupKey) *actor.Props { return group.Props(k, h.deps) },
		NodeID: opts.NodeID, Rules: opts.Rules, Now: opts.Now, RequestTimeout: opts.RequestTimeout,
		Refusing: func() string { return h.node.RefusingRequests() }, GroupsActive: opts.GroupsActive,
		Metrics: metrics, Logger: logger,
	})
	h.node = newNode(h)
	h.rs = driver.New(driverNode{h}, opts.Resharding, opts.RequestTimeout)
	h.deps = &group.Deps{
		Store: opts.Store, Provisioner: opts.Provisioner, Rules: opts.Rules, NodeID: opts.NodeID,
		Owner: h.node.Owner(), IdlePassivation: opts.IdlePassivation, Node: h.node,
		Now: opts.Now, Logger: logger, Metrics: opts.Metrics,
		StoreTimeout: opts.RequestTimeout / 2, Nudger: opts.Nudger,
	}
	h.pinger = h.system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return pingActor{} }))
	var limits service.LimitMetrics
	if opts.Metrics != nil {
		limits = opts.Metrics
	}
	h.svc = service.New(service.Options{
		Store: opts.Store, Provisioner: opts.Provisioner, Rules: opts.Rules, NodeID: opts.NodeID,
		Logger: logger, Metrics: limits, Now: opts.Now, DefaultShardCount: opts.DefaultShardCount,
		RequestTimeout: opts.RequestTimeout, EmbeddedRedis: opts.EmbeddedRedis, Limits: opts.Limits,
		MigrationHistory: opts.Resharding.History,
		Router:           h.router, Node: h.node, Reshard: h.rs, Cluster: views{h},
	})
	return h
}

// Start renews this node's record once (learning whether the store lost
// data: then grants are held for a lease), activates the groups that have
// live members and no live owner (one sweep), and starts the confirmation,
// sweep and prune loops. Idle groups are not activated: they cost nothing
// until a request names them. A store that is down is not fatal: groups are
// activated on first use.
func (h *Host) Start(ctx context.Context) error {
	if h.opts.Cluster != nil {
		if err := h.startCluster(); err != nil {
			return err
		}
	}
	rctx, cancel := context.WithTimeout(ctx, h.opts.RequestTimeout)
	defer cancel()
	if err := h.node.Round(rctx); err == nil {
		h.sweep(rctx)
	}
	go h.node.Loop(h.done)
	go h.sweepLoop()
	go h.pruneLoop()
	h.rs.Start()
	return nil
}

// Owner is this node incarnation's name in the store ("nodeId/incarnation").
func (h *Host) Owner() string { return h.node.Owner() }

// Stop stops every group actor and the actor system.
func (h *Host) Stop() {
	h.stopOnce.Do(func() {
		if h.router.Clustered() {
			// The node keeps renewing its record (confirming its activations) while it hands
			// its groups over: an activation unconfirmed for longer than the validity answers
			// RETRY and hands no member timers over.
			h.leaveCluster()
			close(h.done)
			h.rs.Stop()
			h.router.Clear()
			h.node.Leave()
			return
		}
		close(h.done)
		h.rs.Stop()
		pids := h.router.Clear()
		// Release first, so that the next process (a restart, another node) takes the groups
		// over without waiting out this one's confirmation.
		h.router.ReleaseAll(pids)
		for _, pid := range pids {
			_ = h.system.Root.StopFuture(pid).Wait()
		}
		h.node.Leave()
		h.system.Shutdown()
	})
}

func (h *Host) pruneLoop() {
	t := time.NewTicker(h.opts.PruneInterval)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case <-t.C:
			h.router.Broadcast(&groupmsg.PruneTick{})
		}
	}
}

// Service is this node's coordinator.Service: what every transport is given.
func (h *Host) Service() *service.Service { return h.svc }

// Router is where this node's requests find each group's activation.
func (h *Host) Router() *router.Router { return h.router }
