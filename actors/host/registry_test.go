package host

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

// logBuffer is a goroutine-safe log sink.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// conflictMetrics records NodeConflicts reports.
type conflictMetrics struct {
	rounds   atomic.Int64
	peers    atomic.Int64
	refusing atomic.Bool
	refused  atomic.Bool // refusing was reported at least once
}

func (m *conflictMetrics) StateLost()           {}
func (m *conflictMetrics) StoreReadOnly()       {}
func (m *conflictMetrics) SweepActivations(int) {}
func (m *conflictMetrics) NodeConflicts(peers int, refusing bool) {
	m.rounds.Add(1)
	m.peers.Store(int64(peers))
	m.refusing.Store(refusing)
	if refusing {
		m.refused.Store(true)
	}
}

// registryHost starts a host on srv with the default key prefix (every host
// of the test shares it), logging to its own buffer.
func registryHost(t *testing.T, srv *redistest.Server, id string, opts Options) (*Host, *logBuffer, *conflictMetrics) {
	t.Helper()
	store, err := redisstore.New(srv.Client(), redisstore.Options{})
	require.NoError(t, err)
	logs, met := &logBuffer{}, &conflictMetrics{}
	opts.Store, opts.Provisioner, opts.NodeID = store, redisstore.NewProvisioner(srv.Client()), id
	opts.Rules, opts.TrustEmptyStore, opts.NodeMetrics = quickRules, true, met
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h := New(opts)
	t.Cleanup(h.Stop)
	require.NoError(t, h.Start(context.Background()))
	return h, logs, met
}

func health(h *Host) protocol.HealthResponse { return h.Service().Health(context.Background()) }

func hb(h *Host, id string) protocol.HeartbeatResponse {
	r, _ := h.Service().Heartbeat(context.Background(), "orders", "workers", id,
		protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: id, MemberID: id, MemberEpoch: 0, OwnedShards: []protocol.ShardID{}})
	return r
}

// Two nodes left at provider single on one Redis and key prefix: the later
// one refuses to serve (log, health, RETRY, 503, no activation), the earlier
// one serves; when the earlier one stops, the later one serves.
func TestLaterNodeSharingTheStoreRefusesToServe(t *testing.T) {
	srv := redistest.Start(t)
	a, logsA, metA := registryHost(t, srv, "n1", Options{})
	_, err := a.Service().CreateStream(context.Background(), "orders", protocol.CreateStreamRequest{})
	require.NoError(t, err)

	b, logsB, metB := registryHost(t, srv, "n2", Options{})
	require.Eventually(t, func() bool { return health(b).Status == protocol.HealthDown }, 10*time.Second, 10*time.Millisecond)
	hl := health(b)
	require.Equal(t, "UP", hl.Loop)
	require.NotNil(t, hl.NodeConflict)
	require.True(t, hl.NodeConflict.Refusing)
	require.Contains(t, hl.NodeConflict.Reason, "store.key-prefix")
	require.Len(t, hl.NodeConflict.Peers, 1)
	require.Equal(t, "n1", hl.NodeConflict.Peers[0].NodeID)
	require.Equal(t, a.Owner(), hl.NodeConflict.Peers[0].Owner)
	require.Equal(t, "single", hl.NodeConflict.Peers[0].Provider)
	require.True(t, hl.NodeConflict.Peers[0].Earlier)
	require.True(t, metB.refusing.Load())
	require.Equal(t, int64(1), metB.peers.Load())

	// It activates nothing while refusing.
	r := hb(b, "m-b2")
	require.Equal(t, protocol.StatusRetry, r.Status)
	require.Contains(t, r.Message, "refuses to serve")
	_, err = b.Service().Group(context.Background(), "orders", "workers")
	require.ErrorIs(t, err, coordinator.ErrUnavailable)
	require.Contains(t, err.Error(), "n1")
	_, err = b.Service().Groups(context.Background())
	require.ErrorIs(t, err, coordinator.ErrUnavailable)
	_, err = b.Service().CreateStream(context.Background(), "other", protocol.CreateStreamRequest{})
	require.ErrorIs(t, err, coordinator.ErrUnavailable)
	require.Empty(t, b.router.ActiveKeys())
	// An activation that slips in anyway (a request racing the refusal) is released at the next round.
	b.router.PID(workers)
	require.Eventually(t, func() bool { return len(b.router.ActiveKeys()) == 0 }, 10*time.Second, 10*time.Millisecond)

	lines := strings.Split(logsB.String(), "\n")
	var refuse []string
	for _, l := range lines {
		if strings.Contains(l, "level=ERROR") && strings.Contains(l, "REFUSES TO SERVE") {
			refuse = append(refuse, l)
		}
	}
	require.Len(t, refuse, 1, "one ERROR line per conflict:\n%s", logsB.String())
	require.Contains(t, refuse[0], "node n1 (owner "+a.Owner())
	require.Contains(t, refuse[0], "cluster.provider single")
	require.Contains(t, refuse[0], "store.key-prefix")
	require.Contains(t, refuse[0], "cluster.seeds")

	// The earlier node serves, reports the later one and warns once.
	require.Eventually(t, func() bool { return health(a).NodeConflict != nil }, 10*time.Second, 10*time.Millisecond)
	ha := health(a)
	require.Equal(t, protocol.HealthUp, ha.Status)
	require.False(t, ha.NodeConflict.Refusing)
	require.Equal(t, "n2", ha.NodeConflict.Peers[0].NodeID)
	require.False(t, ha.NodeConflict.Peers[0].Earlier)
	require.False(t, metA.refused.Load())
	require.Equal(t, protocol.StatusOK, hb(a, "m-a").Status)
	require.Equal(t, 1, strings.Count(logsA.String(), "it registered later and should refuse to serve"))

	// The earlier node stops (deregisters): the later one serves again.
	a.Stop()
	require.Eventually(t, func() bool { return health(b).Status == protocol.HealthUp }, 10*time.Second, 10*time.Millisecond)
	require.Nil(t, health(b).NodeConflict)
	require.False(t, metB.refusing.Load())
	require.Equal(t, int64(0), metB.peers.Load())
	require.Contains(t, logsB.String(), "serving again")
	require.Equal(t, protocol.StatusOK, hb(b, "m-b3").Status)
}

// A node that holds activations when it starts refusing gives them up: here
// it saw the other node as a cluster member, then its cluster view drops it.
func TestRefusingNodeReleasesItsActivations(t *testing.T) {
	srv := redistest.Start(t)
	a, _, _ := registryHost(t, srv, "n1", Options{ClusterSettle: time.Millisecond,
		ClusterView: func() (string, []string) { return "n1", []string{"n1"} }})
	_, err := a.Service().CreateStream(context.Background(), "orders", protocol.CreateStreamRequest{})
	require.NoError(t, err)
	inCluster := atomic.Bool{}
	inCluster.Store(true)
	b, _, metB := registryHost(t, srv, "n2", Options{ClusterSettle: time.Millisecond,
		ClusterView: func() (string, []string) {
			if inCluster.Load() {
				return "n2", []string{"n1", "n2"}
			}
			return "n2", []string{"n2"}
		}})
	require.Equal(t, protocol.StatusOK, hb(b, "m-b").Status)
	require.Equal(t, []persistence.GroupKey{workers}, b.router.ActiveKeys())
	require.False(t, metB.refused.Load())

	inCluster.Store(false)
	require.Eventually(t, func() bool { return metB.refusing.Load() }, 10*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool { return len(b.router.ActiveKeys()) == 0 }, 10*time.Second, 10*time.Millisecond)
	snap, err := b.opts.Store.LoadGroup(context.Background(), workers)
	require.NoError(t, err)
	require.Empty(t, snap.Owner, "the activation was released in the store, not only stopped")
	require.Equal(t, protocol.StatusOK, hb(a, "m-a").Status, "the earlier node takes the group at once")
}

// A restart keeps the node id: the previous incarnation's registration
// outlives it by up to a TTL but it no longer renews, so the new process
// serves. Two processes running at once with one node id do conflict.
func TestRestartOfTheSameNodeIsNoConflict(t *testing.T) {
	srv := redistest.Start(t)
	store, err := redisstore.New(srv.Client(), redisstore.Options{})
	require.NoError(t, err)
	// The previous incarnation of n1 crashed after its last renewal: its entry lives a minute.
	old := persistence.OwnerName("n1", "crashed")
	_, err = store.RenewNode(context.Background(), persistence.NodeRenewal{Owner: old, TTL: time.Minute,
		NewInstance:  persistence.Instance{ID: "i", CreatedAt: time.Now()},
		Registration: persistence.NodeRegistration{NodeID: "n1", Provider: "single"}})
	require.NoError(t, err)

	n1, logs, met := registryHost(t, srv, "n1", Options{})
	// Many times the grace (3 rounds) with the old entry live all along.
	require.Eventually(t, func() bool { return met.rounds.Load() >= 12 }, 10*time.Second, 5*time.Millisecond)
	alive, err := store.NodeAlive(context.Background(), old)
	require.NoError(t, err)
	require.True(t, alive, "the old incarnation's record must still be live for this test to mean anything")
	require.False(t, met.refused.Load())
	require.Equal(t, int64(0), met.peers.Load())
	require.Equal(t, protocol.HealthUp, health(n1).Status)
	require.Nil(t, health(n1).NodeConflict)
	require.NotContains(t, logs.String(), "REFUSES")

	// A second live process with node id n1 is a conflict: the later one refuses.
	dup, _, metDup := registryHost(t, srv, "n1", Options{})
	require.Eventually(t, func() bool { return health(dup).Status == protocol.HealthDown }, 10*time.Second, 10*time.Millisecond)
	require.True(t, metDup.refusing.Load())
	require.Equal(t, n1.Owner(), health(dup).NodeConflict.Peers[0].Owner)
	require.False(t, met.refused.Load(), "the earlier process keeps serving")
}

// A node that sees an earlier conflicting node within the grace does not
// sweep: it would only activate groups (fencing the earlier node's) to
// release them rounds later.
func TestNodeThatMayRefuseDoesNotSweep(t *testing.T) {
	mem, prov := newQuickStore(t)
	ctx := context.Background()
	a := New(Options{Store: mem, Provisioner: prov, NodeID: "n1", Rules: quickRules, TrustEmptyStore: true})
	t.Cleanup(a.Stop)
	require.NoError(t, a.node.Round(ctx))
	seedIdleGroups(t, mem, 1)
	k := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "g00000"}
	snap, err := mem.LoadGroup(ctx, k)
	require.NoError(t, err)
	require.NoError(t, mem.MarkLive(ctx, k, snap.ActivationEpoch))

	// b's cluster view will never list n1, but its grace (cluster settle time) lasts an hour.
	b := New(Options{Store: mem, Provisioner: prov, NodeID: "n2", Rules: quickRules, TrustEmptyStore: true,
		ClusterSettle: time.Hour, ClusterView: func() (string, []string) { return "n2", []string{"n2"} }})
	t.Cleanup(b.Stop)
	require.NoError(t, b.node.Round(ctx))
	require.True(t, b.node.HoldsSweep())
	require.Empty(t, b.node.RefusingRequests(), "within the grace: not refusing yet")
	b.sweep(ctx)
	require.Empty(t, b.router.ActiveKeys())
	require.False(t, a.node.HoldsSweep(), "the earlier node sweeps")
	a.sweep(ctx)
	require.Equal(t, []persistence.GroupKey{k}, a.router.ActiveKeys())
}
