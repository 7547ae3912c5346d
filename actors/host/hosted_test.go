package host

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

// HostedGroups lists only the activations on this node, with the unowned
// shard count from the group's own state; an idle node lists nothing and a
// passivated group drops out.
func TestHostedGroupsListsActivationsOnly(t *testing.T) {
	mem, prov := newQuickStore(t)
	h := quickHost(t, mem, prov, "n1")
	got, failed := h.router.HostedGroups(time.Second)
	require.Empty(t, got)
	require.Empty(t, failed)

	r := beat(t, h, "a", 0, nil)
	require.Equal(t, protocol.StatusOK, r.Status)
	got, failed = h.router.HostedGroups(time.Second)
	require.Empty(t, failed)
	require.Len(t, got, 1)
	require.Equal(t, workers, got[0].Key)
	require.Equal(t, 4, got[0].ShardCount)
	require.Equal(t, 4-len(r.Assignment.AssignedShards), got[0].Unowned)
	// The same count as the assignments view's current assignments.
	a, err := h.Service().Assignments(context.Background(), "orders", "workers")
	require.NoError(t, err)
	owned := map[int]bool{}
	for _, shards := range a.CurrentAssignments {
		for _, s := range shards {
			owned[s.ShardIndex] = true
		}
	}
	require.Equal(t, 4-len(owned), got[0].Unowned)

	require.Equal(t, protocol.StatusOK, beat(t, h, "a", -1, nil).Status)
	require.Eventually(t, func() bool { g, _ := h.router.HostedGroups(time.Second); return len(g) == 0 },
		5*time.Second, 20*time.Millisecond, "a passivated group is not hosted")
}

// TestHostedGroupsCost times HostedGroups on a node hosting
// RSC_BENCH_HOSTED_GROUPS (1000) active groups of a 64-shard stream, one
// member each: the in-process part of a sampling round.
//
//	RSC_BENCH_HOSTED=1 go test -count=1 -run TestHostedGroupsCost -v ./actors/host/
func TestHostedGroupsCost(t *testing.T) {
	if os.Getenv("RSC_BENCH_HOSTED") == "" {
		t.Skip("set RSC_BENCH_HOSTED=1 to time HostedGroups")
	}
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("RSC_BENCH_HOSTED_GROUPS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	mem, prov := memstore.New(), memstore.NewProvisioner()
	_, err := mem.CreateStream(ctx, persistence.StreamRecord{StreamPrefix: "bench", ShardCount: 64, MetadataVersion: 1})
	require.NoError(t, err)
	rules := model.Config{HeartbeatInterval: 3 * time.Second, LeaseTTL: time.Minute, RebalanceTimeout: time.Minute, Retention: time.Hour}
	h := New(Options{Store: mem, Provisioner: prov, NodeID: "n1", Rules: rules, TrustEmptyStore: true, ClusterView: testCluster("n1")})
	t.Cleanup(h.Stop)
	require.NoError(t, h.Start(ctx))
	for i := 0; i < n; i++ {
		g := fmt.Sprintf("g%04d", i)
		r, err := h.Service().Heartbeat(ctx, "bench", g, "m", protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: g, MemberID: "m"})
		require.NoError(t, err)
		require.Equal(t, protocol.StatusOK, r.Status)
	}
	for round := 0; round < 3; round++ {
		start := time.Now()
		got, failed := h.router.HostedGroups(5 * time.Second)
		took := time.Since(start)
		require.Empty(t, failed)
		require.Len(t, got, n)
		t.Logf("HostedGroups: %d groups × 64 shards in %s", n, took)
	}
}
