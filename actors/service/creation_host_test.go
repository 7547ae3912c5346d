package service_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/host"
	"github.com/redisstream/coordinator/actors/service"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

// countingMetrics records limit rejections; everything else is dropped.
type countingMetrics struct {
	mu     sync.Mutex
	limits map[string]int
}

func (m *countingMetrics) Heartbeat(string, time.Duration)              {}
func (m *countingMetrics) Persist(time.Duration, error)                 {}
func (m *countingMetrics) MemberExpired()                               {}
func (m *countingMetrics) MemberFenced()                                {}
func (m *countingMetrics) Members(persistence.GroupKey, map[string]int) {}
func (m *countingMetrics) Activated()                                   {}
func (m *countingMetrics) Passivated()                                  {}
func (m *countingMetrics) RetainedTrimmed(int)                          {}
func (m *countingMetrics) LimitRejected(limit string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.limits[limit]++
}

func (m *countingMetrics) count(limit string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.limits[limit]
}

func newLimitedHost(t *testing.T, limits service.Limits) (*host.Host, *memstore.Store, *countingMetrics) {
	t.Helper()
	store := memstore.New()
	met := &countingMetrics{limits: map[string]int{}}
	h := host.New(host.Options{Store: store, Provisioner: memstore.NewProvisioner(), NodeID: "test", Metrics: met, Limits: limits, TrustEmptyStore: true,
		Rules: model.Config{HeartbeatInterval: time.Second, LeaseTTL: 10 * time.Second, RebalanceTimeout: 10 * time.Second, Retention: time.Hour}})
	t.Cleanup(h.Stop)
	require.NoError(t, h.Start(context.Background()))
	four := 4
	_, err := h.Service().CreateStream(context.Background(), "orders", protocol.CreateStreamRequest{InitialShardCount: &four, RequestedBy: "test"})
	require.NoError(t, err)
	return h, store, met
}

func join(id string) protocol.HeartbeatRequest {
	return protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "r-" + id, MemberID: id}
}

func storedGroups(t *testing.T, store persistence.Store) []persistence.GroupKey {
	t.Helper()
	keys, err := store.ListGroups(context.Background(), "")
	require.NoError(t, err)
	return keys
}

// Only a join creates a group; any other epoch for a group that does not
// exist is answered without spawning or storing anything.
func TestHeartbeatForUnknownGroupCreatesNothingUnlessJoin(t *testing.T) {
	h, store, _ := newLimitedHost(t, service.Limits{GroupsPerStream: 10})
	ctx := context.Background()

	req := join("m")
	req.MemberEpoch = 1
	r, err := h.Service().Heartbeat(ctx, "orders", "ghost", "m", req)
	require.NoError(t, err)
	require.Equal(t, protocol.StatusUnknownMemberID, r.Status)
	require.Contains(t, r.Message, "ghost")

	req.MemberEpoch = -1
	r, err = h.Service().Heartbeat(ctx, "orders", "ghost2", "m", req)
	require.NoError(t, err)
	require.Equal(t, protocol.StatusOK, r.Status, "leaving a group that does not exist is a no-op")
	require.Equal(t, int64(-1), r.MemberEpoch)

	require.Empty(t, storedGroups(t, store))
	require.Empty(t, h.Router().ActiveKeys())

	r, err = h.Service().Heartbeat(ctx, "orders", "real", "m", join("m"))
	require.NoError(t, err)
	require.Equal(t, protocol.StatusOK, r.Status)
	require.Equal(t, []persistence.GroupKey{{StreamPrefix: "orders", ConsumerGroup: "real"}}, storedGroups(t, store))
}

// limits.groups-per-stream: joins beyond it are RETRY naming the key, routing
// and POST are 429-class errors, nothing is stored, and each refusal counts.
func TestGroupsPerStreamLimit(t *testing.T) {
	h, store, met := newLimitedHost(t, service.Limits{GroupsPerStream: 2})
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		r, err := h.Service().Heartbeat(ctx, "orders", fmt.Sprintf("g%d", i), "m", join("m"))
		require.NoError(t, err)
		require.Equal(t, protocol.StatusOK, r.Status)
	}
	r, err := h.Service().Heartbeat(ctx, "orders", "g2", "m", join("m"))
	require.NoError(t, err)
	require.Equal(t, protocol.StatusRetry, r.Status)
	require.Contains(t, r.Message, "limits.groups-per-stream")
	require.Equal(t, "r-m", r.ResponseTo)

	_, err = h.Service().ProducerRouting(ctx, "orders", "g3")
	require.ErrorIs(t, err, coordinator.ErrLimitExceeded)
	require.Contains(t, err.Error(), "limits.groups-per-stream")
	_, err = h.Service().CreateGroup(ctx, "orders", "g4", protocol.CreateGroupRequest{RequestedBy: "ops"})
	require.ErrorIs(t, err, coordinator.ErrLimitExceeded)

	require.Len(t, storedGroups(t, store), 2)
	require.Len(t, h.Router().ActiveKeys(), 2)
	require.Equal(t, 3, met.count(service.LimitGroupsPerStream))

	// Existing groups keep working; another stream has its own budget.
	r, err = h.Service().Heartbeat(ctx, "orders", "g0", "n", join("n"))
	require.NoError(t, err)
	require.Equal(t, protocol.StatusOK, r.Status)
	one := 1
	_, err = h.Service().CreateStream(ctx, "other", protocol.CreateStreamRequest{InitialShardCount: &one, RequestedBy: "test"})
	require.NoError(t, err)
	_, err = h.Service().CreateGroup(ctx, "other", "g0", protocol.CreateGroupRequest{RequestedBy: "ops"})
	require.NoError(t, err)

	// Deleting a group makes room at once (the "stream is full" memo is dropped).
	_, err = h.Service().DeleteGroup(ctx, "orders", "g1", protocol.DeleteGroupRequest{RequestedBy: "ops", Force: true})
	require.NoError(t, err)
	_, err = h.Service().CreateGroup(ctx, "orders", "g5", protocol.CreateGroupRequest{RequestedBy: "ops"})
	require.NoError(t, err)
	_, err = h.Service().CreateGroup(ctx, "orders", "g6", protocol.CreateGroupRequest{RequestedBy: "ops"})
	require.ErrorIs(t, err, coordinator.ErrLimitExceeded)
}

// Concurrent joins for many new groups never exceed the limit on one node.
func TestGroupsPerStreamLimitUnderConcurrency(t *testing.T) {
	h, store, met := newLimitedHost(t, service.Limits{GroupsPerStream: 5})
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, _ = h.Service().Heartbeat(context.Background(), "orders", fmt.Sprintf("g%d", i), "m", join("m"))
		}(i)
	}
	wg.Wait()
	require.Len(t, storedGroups(t, store), 5)
	require.Equal(t, 35, met.count(service.LimitGroupsPerStream))
}

// groups.creation explicit: only CreateGroup creates; joins, routing and GET
// group for an unknown group are refused and store nothing.
func TestExplicitGroupCreation(t *testing.T) {
	h, store, _ := newLimitedHost(t, service.Limits{GroupsPerStream: 10, ExplicitGroupCreation: true})
	ctx := context.Background()

	r, err := h.Service().Heartbeat(ctx, "orders", "workers", "m", join("m"))
	require.NoError(t, err)
	require.Equal(t, protocol.StatusUnknownMemberID, r.Status)
	require.Contains(t, r.Message, "groups.creation is explicit")
	_, err = h.Service().ProducerRouting(ctx, "orders", "workers")
	require.ErrorIs(t, err, coordinator.ErrGroupNotFound)
	_, err = h.Service().Group(ctx, "orders", "workers")
	require.ErrorIs(t, err, coordinator.ErrGroupNotFound)
	require.Empty(t, storedGroups(t, store))
	require.Empty(t, h.Router().ActiveKeys())

	g, err := h.Service().CreateGroup(ctx, "orders", "workers", protocol.CreateGroupRequest{RequestedBy: "ops", Reason: "new service"})
	require.NoError(t, err)
	require.Equal(t, "workers", g.ConsumerGroup)
	require.Equal(t, 4, g.ShardCount)
	_, err = h.Service().CreateGroup(ctx, "orders", "workers", protocol.CreateGroupRequest{RequestedBy: "ops"})
	require.ErrorIs(t, err, coordinator.ErrGroupExists)
	_, err = h.Service().CreateGroup(ctx, "nosuch", "workers", protocol.CreateGroupRequest{RequestedBy: "ops"})
	require.ErrorIs(t, err, coordinator.ErrStreamNotFound)

	r, err = h.Service().Heartbeat(ctx, "orders", "workers", "m", join("m"))
	require.NoError(t, err)
	require.Equal(t, protocol.StatusOK, r.Status)
	require.Len(t, r.Assignment.AssignedShards, 4)
}
