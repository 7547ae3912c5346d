package host

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/actors/router"
)

// ClusterOptions makes a host a member of an actor host cluster: group actors
// are cluster grains (kind "group", identity group.IdentityOf) that the
// cluster places on one node, and every node forwards requests to them.
// Nil Options.Cluster: one node, no listener (cluster.provider single).
type ClusterOptions struct {
	// Name: nodes form a cluster only with nodes of the same name.
	Name     string
	Provider cluster.ClusterProvider
	Remote   *remote.Config
	// ProviderName is reported by health ("automanaged", "kubernetes", "test").
	ProviderName string
	// HeartbeatExpiration: a node whose gossip heartbeat is this old is
	// evicted by the others (protoactor's default 20s when zero).
	HeartbeatExpiration time.Duration
	// Evicted is called once when this node finds it was evicted from the
	// cluster (it cannot rejoin): the process should exit so that its
	// supervisor restarts it fresh. Default: log only.
	Evicted func(reason string)
	// Metrics, if set, observes forwarded requests.
	Metrics ClusterMetrics
}

// ClusterMetrics observes grain requests (router.GrainMetrics) and the member
// list; implementations must be cheap and safe for concurrent use.
type ClusterMetrics interface {
	router.GrainMetrics
	// SetClusterMembers records how many members this node sees.
	SetClusterMembers(n int)
}

// nodeInfoName is the name of the actor on every node that answers
// wire.NodeInfoRequest (debug views of the whole cluster).
const nodeInfoName = "rsc-node"

// clusterState is the host's cluster side; nil fields in single mode.
type clusterState struct {
	c *cluster.Cluster

	mu       sync.Mutex
	leaving  bool         // Stop began: refuse to host groups, answer RETRY
	members  []memberView // last topology event's members (onTopology)
	joinedAt time.Time    // when a member last joined (placement.go)
	place    placement    // this node's rendezvous over members (ownership.go)
}

// startCluster joins the cluster. protoactor panics on a failed start (a
// port in use): that becomes an error.
func (h *Host) startCluster() (err error) {
	o := h.opts.Cluster
	opts := []cluster.ConfigOption{
		cluster.WithKinds(cluster.NewKind(group.Kind, group.GrainProps(h.deps))),
		cluster.WithRequestTimeout(h.opts.RequestTimeout),
	}
	if o.HeartbeatExpiration > 0 {
		opts = append(opts, cluster.WithHeartbeatExpiration(o.HeartbeatExpiration))
	}
	cfg := cluster.Configure(o.Name, o.Provider, disthash.New(), o.Remote, opts...)
	c := cluster.New(h.system, cfg)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("join cluster %q: %v", o.Name, r)
		}
	}()
	h.system.EventStream.Subscribe(func(ev any) {
		if t, ok := ev.(*cluster.ClusterTopology); ok {
			h.onTopology(t)
		}
	})
	c.StartMember()
	h.cl.c = c
	h.router.UseCluster(c)
	if _, err := h.system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return &nodeInfoActor{h: h} }), nodeInfoName); err != nil {
		return fmt.Errorf("start node info actor: %w", err)
	}
	h.opts.Logger.Info("joined the actor host cluster", slog.String("cluster", o.Name),
		slog.String("provider", o.ProviderName), slog.String("address", h.system.Address()), slog.String("memberId", h.system.ID))
	go h.node.WatchPause(h.done, h.evictionAfter())
	return nil
}

// evictionAfter (node.WatchPause's limit) is how long a silent node can be sure it is still a member:
// the provider's failure detection (automanaged pings every second or two
// with a 2 s timeout) evicts sooner than gossip's heartbeat expiration.
func (h *Host) evictionAfter() time.Duration {
	if h.opts.Cluster.ProviderName == "automanaged" {
		return 2 * time.Second
	}
	if e := h.opts.Cluster.HeartbeatExpiration; e > 0 {
		return e
	}
	return 20 * time.Second
}

// clusterMembers lists the cluster members this node sees.
// It reads this node's copy of the last topology event: protoactor's own
// member list is rewritten by the provider without a lock readers can take.
func (h *Host) clusterMembers() []memberView {
	h.cl.mu.Lock()
	defer h.cl.mu.Unlock()
	return h.cl.members
}

// memberView is one cluster member as the last topology event listed it.
type memberView struct{ ID, Addr string }

// Address is the member's remote address (host:port).
func (m memberView) Address() string { return m.Addr }

// onTopology keeps this node's copy of the member list (copied while the
// event is delivered, before the provider touches the slice again).
func (h *Host) onTopology(t *cluster.ClusterTopology) {
	out := make([]memberView, 0, len(t.Members))
	keys := make([]string, 0, 2*len(t.Members))
	for _, m := range t.Members {
		out = append(out, memberView{ID: m.Id, Addr: m.Address()})
		keys = append(keys, m.Id, m.Address())
	}
	h.lib.tracker().topology(keys) // a peer gone from the list has left: its connection lines are expected
	h.cl.mu.Lock()
	h.notePlacementMove(h.cl.members, out)
	h.notePlacement(h.cl.members, out, t.Members)
	h.cl.members = out
	h.cl.mu.Unlock()
	if m := h.opts.Cluster.Metrics; m != nil {
		m.SetClusterMembers(len(out))
	}
}
