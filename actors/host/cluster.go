package host

import (
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/actors/wire"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
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

// ClusterMetrics observes grain requests; implementations must be cheap and
// safe for concurrent use.
type ClusterMetrics interface {
	// GrainRequest observes one request to a group grain: the operation,
	// whether the grain was on another node, how long it took, and its
	// outcome ("ok"; "error": the grain answered with an error code;
	// "unavailable": no answer in time).
	GrainRequest(op string, remote bool, d time.Duration, outcome string)
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

	inflight atomic.Int64 // cluster requests waiting for an answer (requestGrain)

	knownMu sync.Mutex
	known   map[persistence.GroupKey]time.Time // groups known to be stored, until
}

// maxInflightGrainRequests bounds the cluster requests of one node that are
// waiting for an answer (also those whose caller already gave up).
const maxInflightGrainRequests = 20_000

// knownTTL bounds how long a node trusts that a group it checked is stored
// (so that forwarding a heartbeat costs no store read); a group deleted
// through another node is noticed within it. A forwarded heartbeat the
// group's activation accepted (keepKnown) counts as a check that lasts a
// member lease: while members heartbeat, nothing is read (a group force-deleted
// while its members go on heartbeating through another node is noticed there
// within a lease). Known limit: within that window
// a join forwarded by such a node re-creates the deleted group as a new one
// (also with groups.creation explicit), because an activation cannot tell a
// deleted group from one the store lost.
const knownTTL = 5 * time.Second

// maxKnown bounds the cache; past it the cache starts over.
const maxKnown = 100_000

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
	if _, err := h.system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return &nodeInfoActor{h: h} }), nodeInfoName); err != nil {
		return fmt.Errorf("start node info actor: %w", err)
	}
	h.opts.Logger.Info("joined the actor host cluster", slog.String("cluster", o.Name),
		slog.String("provider", o.ProviderName), slog.String("address", h.system.Address()), slog.String("memberId", h.system.ID))
	go h.node.WatchPause(h.done, h.evictionAfter())
	return nil
}

// clustered reports whether this host is a member of a cluster.
func (h *Host) clustered() bool { return h.cl.c != nil }

// askCluster forwards msg to the group's grain, wherever the cluster places
// it, and waits for the reply until timeout. A grain that stopped between
// lookup and delivery is looked up again.
func (h *Host) askCluster(key persistence.GroupKey, msg any, timeout time.Duration) (any, error) {
	start := h.opts.Now()
	req, err := group.RequestToWire(msg, start)
	if err != nil {
		return nil, err
	}
	req.FromNode = h.opts.NodeID
	id := group.IdentityOf(key)
	deadline := start.Add(timeout)
	if req.DeadlineUnixNano == 0 {
		// Every forwarded request carries a deadline: one still queued (or still being
		// delivered by a lookup that outlived its caller) when nobody waits any more is not
		// evaluated — a DELETE answered 503 must not run later.
		group.SetDeadline(req, deadline, start)
	}
	op := opName(req)
	for {
		left := deadline.Sub(h.opts.Now())
		if left <= 0 {
			h.observeGrain(op, id, start, "unavailable")
			return nil, fmt.Errorf("group %s could not be placed or did not answer within %s: %w", key, timeout, coordinator.ErrGroupMoving)
		}
		res, err := h.requestGrain(id, req, left)
		if err != nil {
			h.observeGrain(op, id, start, "unavailable")
			return nil, fmt.Errorf("group %s did not answer within %s: %v: %w", key, timeout, err, coordinator.ErrGroupMoving)
		}
		switch r := res.(type) {
		case *wire.GroupReply:
			out, err := group.ReplyFromWire(msg, r)
			outcome := "ok"
			if r.GetCode() != wire.Code_OK {
				outcome = "error"
			}
			h.observeGrain(op, id, start, outcome)
			if hb, ok := out.(*group.HeartbeatReply); ok && err == nil && memberKnown(hb.Response.Status) {
				h.keepKnown(key)
			}
			return out, err
		case *actor.DeadLetterResponse:
			// The grain stopped (passivated, moved, fenced): look it up again.
			h.cl.c.PidCache.Remove(id, group.Kind)
			time.Sleep(min(10*time.Millisecond, left))
		default:
			h.observeGrain(op, id, start, "unavailable")
			return nil, fmt.Errorf("group %s answered %T: %w", key, res, coordinator.ErrGroupMoving)
		}
	}
}

// requestGrain is one cluster request that returns by timeout at the latest.
// protoactor's lookup of a grain's PID asks the placement node with a fixed
// 5 s timeout that the request's own timeout does not cut short (a node that
// is shutting down, or paused, answers nothing): the call then goes on in
// the background, and the caller answers RETRY in time.
func (h *Host) requestGrain(id string, req *wire.GroupRequest, timeout time.Duration) (any, error) {
	type result struct {
		res any
		err error
	}
	// Calls stuck behind a silent node outlive their callers by up to the lookup's 5 s:
	// bounded, so that a paused node under heavy traffic cannot pile up goroutines.
	if h.cl.inflight.Add(1) > maxInflightGrainRequests {
		h.cl.inflight.Add(-1)
		return nil, fmt.Errorf("%d requests to group grains are still waiting for an answer", maxInflightGrainRequests)
	}
	done := make(chan result, 1)
	go func() {
		defer h.cl.inflight.Add(-1)
		res, err := h.cl.c.Request(id, group.Kind, req, cluster.WithTimeout(timeout), cluster.WithRetryCount(1<<20),
			cluster.WithRetryAction(func(i int) int {
				time.Sleep(min(time.Duration(i+1)*10*time.Millisecond, 100*time.Millisecond))
				return i + 1
			}))
		done <- result{res, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-done:
		return r.res, r.err
	case <-t.C:
		return nil, fmt.Errorf("no answer within %s", timeout)
	}
}

func (h *Host) observeGrain(op, id string, start time.Time, outcome string) {
	m := h.opts.Cluster.Metrics
	if m == nil {
		return
	}
	remote := false
	if pid, ok := h.cl.c.PidCache.Get(id, group.Kind); ok && pid != nil {
		remote = pid.Address != h.system.Address()
	}
	m.GrainRequest(op, remote, h.opts.Now().Sub(start), outcome)
}

func opName(r *wire.GroupRequest) string {
	switch r.Op.(type) {
	case *wire.GroupRequest_Heartbeat:
		return "heartbeat"
	case *wire.GroupRequest_Describe:
		return "describe"
	case *wire.GroupRequest_Debug:
		return "debug"
	case *wire.GroupRequest_Delete:
		return "delete"
	case *wire.GroupRequest_Resize:
		return "resize"
	case *wire.GroupRequest_Release:
		return "release"
	case *wire.GroupRequest_Touch:
		return "touch"
	}
	return "other"
}

// knownStored reports whether the group was recently seen stored.
func (h *Host) knownStored(key persistence.GroupKey) bool {
	h.cl.knownMu.Lock()
	defer h.cl.knownMu.Unlock()
	until, ok := h.cl.known[key]
	return ok && h.opts.Now().Before(until)
}

// memberKnown reports whether a heartbeat answered with status was accepted
// by an activation that knows the member, i.e. of a stored group.
func memberKnown(status protocol.Status) bool {
	switch status {
	case protocol.StatusOK, protocol.StatusRevokePending, protocol.StatusSyncMetadata:
		return true
	}
	return false
}

// keepKnown extends the cache entry of a group whose activation just accepted
// a forwarded heartbeat of a member it knows: that proves the group stored as
// well as a store read would. Such an entry lasts one member lease (plus a
// heartbeat interval) rather than knownTTL, so that a node forwarding steady
// heartbeats reads nothing per group even when it sees a group less often than
// every knownTTL (without it: one full read of the group per knownTTL and
// group while nothing changes, O(groups) reads; docs/BENCHMARKS.md). The entry
// is rewritten only once half of it has run out.
func (h *Host) keepKnown(key persistence.GroupKey) {
	ttl := max(knownTTL, h.opts.Rules.LeaseTTL+h.opts.Rules.HeartbeatInterval)
	now := h.opts.Now()
	h.cl.knownMu.Lock()
	defer h.cl.knownMu.Unlock()
	if until, ok := h.cl.known[key]; ok && until.Sub(now) >= ttl/2 {
		return
	}
	if h.cl.known == nil || len(h.cl.known) >= maxKnown {
		h.cl.known = map[persistence.GroupKey]time.Time{}
	}
	h.cl.known[key] = now.Add(ttl)
}

// markKnown records that the group is stored (cluster mode only).
func (h *Host) markKnown(key persistence.GroupKey) {
	if !h.clustered() {
		return
	}
	h.cl.knownMu.Lock()
	defer h.cl.knownMu.Unlock()
	if h.cl.known == nil || len(h.cl.known) >= maxKnown {
		h.cl.known = map[persistence.GroupKey]time.Time{}
	}
	h.cl.known[key] = h.opts.Now().Add(knownTTL)
}

// forgetKnown drops a group from the cache (deleted).
func (h *Host) forgetKnown(key persistence.GroupKey) {
	h.cl.knownMu.Lock()
	delete(h.cl.known, key)
	h.cl.knownMu.Unlock()
}

// register records a group actor that started on this node (a grain the
// cluster placed here, or an actor the host spawned).
func (h *Host) register(key persistence.GroupKey, pid *actor.PID) {
	h.mu.Lock()
	h.groups[key] = pid
	h.reportGroups()
	h.mu.Unlock()
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
	h.cl.members = out
	h.cl.mu.Unlock()
	if m := h.opts.Cluster.Metrics; m != nil {
		m.SetClusterMembers(len(out))
	}
}
