package router

import (
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/persistence"
)

// Options configures a Router.
type Options struct {
	// System is the node's actor system; group actors are spawned in it.
	System *actor.ActorSystem
	// Props builds the props of a local group actor for key (single mode).
	Props func(key persistence.GroupKey) *actor.Props
	// NodeID names this node in forwarded requests.
	NodeID string
	// Rules are the group rules; their lease and heartbeat interval bound
	// how long a group stays known to be stored (known.go).
	Rules model.Config
	// Now is the node's one clock. Default time.Now.
	Now func() time.Time
	// RequestTimeout bounds one request to a group actor. Default 5 s.
	RequestTimeout time.Duration
	// Refusing returns why this node refuses to serve ("" when it serves):
	// requests are then answered coordinator.ErrUnavailable. Nil: never.
	Refusing func() string
	// GroupsActive, if set, is told the number of group actors on this node
	// whenever it changes (metrics).
	GroupsActive func(n int)
	// Metrics, if set, observes forwarded requests (cluster mode).
	Metrics GrainMetrics
	Logger  *slog.Logger
}

// GrainMetrics observes grain requests; implementations must be cheap and
// safe for concurrent use.
type GrainMetrics interface {
	// GrainRequest observes one request to a group grain: the operation,
	// whether the grain was on another node, how long it took, and its
	// outcome ("ok"; "error": the grain answered with an error code;
	// "unavailable": no answer in time).
	GrainRequest(op string, remote bool, d time.Duration, outcome string)
}

// Router finds a group's activation and sends it requests.
type Router struct {
	o Options

	mu     sync.Mutex
	groups map[persistence.GroupKey]*actor.PID // this node's group actors

	// cl is the cluster (nil: single mode). Set once by UseCluster while
	// other goroutines (topology events, grains started by peers) may
	// already ask Clustered: an atomic pointer, no lock on the request path.
	cl       atomic.Pointer[cluster.Cluster]
	inflight atomic.Int64 // cluster requests waiting for an answer (requestGrain)

	knownMu sync.Mutex
	known   map[persistence.GroupKey]time.Time // groups known to be stored, until

	releasing atomic.Bool // a Release is running
}

// New builds a router. It subscribes to the actor system's dead letters so
// that a local heartbeat its actor could not receive is asked again.
func New(o Options) *Router {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 5 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.System != nil {
		o.System.EventStream.Subscribe(onDeadLetter)
	}
	return &Router{o: o, groups: map[persistence.GroupKey]*actor.PID{}}
}

// UseCluster makes every request go through cluster c (the node joined an
// actor host cluster). Called once, before the node serves requests; safe
// while other goroutines call Clustered.
func (r *Router) UseCluster(c *cluster.Cluster) { r.cl.Store(c) }

// Clustered reports whether the node is a member of a cluster.
func (r *Router) Clustered() bool { return r.cl.Load() != nil }

// Refusal is the error group requests answer while the node refuses to
// serve: coordinator.ErrUnavailable (503, Retry-After) with the why; nil
// otherwise.
func (r *Router) Refusal() error {
	if r.o.Refusing == nil {
		return nil
	}
	why := r.o.Refusing()
	if why == "" {
		return nil
	}
	return fmt.Errorf("this coordinator node refuses to serve: %s: %w", why, coordinator.ErrUnavailable)
}
