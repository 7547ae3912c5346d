package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/host"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

func newTestHost(t *testing.T) (*host.Host, *memstore.Store) {
	t.Helper()
	store := memstore.New()
	h := host.New(host.Options{Store: store, Provisioner: memstore.NewProvisioner(), NodeID: "test", TrustEmptyStore: true,
		Rules: model.Config{HeartbeatInterval: time.Second, LeaseTTL: 10 * time.Second, RebalanceTimeout: 10 * time.Second, Retention: time.Hour}})
	t.Cleanup(h.Stop)
	require.NoError(t, h.Start(context.Background()))
	four := 4
	_, err := h.Service().CreateStream(context.Background(), "orders", protocol.CreateStreamRequest{InitialShardCount: &four, RequestedBy: "test"})
	require.NoError(t, err)
	return h, store
}

// A heartbeat every group rejects (UNSUPPORTED_PROTOCOL, INVALID_REQUEST) changes nothing: it
// must not create, activate and store the group it names (nor its Redis consumer groups).
func TestRejectedHeartbeatDoesNotCreateTheGroup(t *testing.T) {
	h, store := newTestHost(t)
	ctx := context.Background()
	cases := map[string]protocol.HeartbeatRequest{
		"v2":       {ProtocolVersion: 2, RequestID: "r", MemberID: "m"},
		"mismatch": {ProtocolVersion: 1, RequestID: "r", MemberID: "other"},
		"epoch-5":  {ProtocolVersion: 1, RequestID: "r", MemberID: "m", MemberEpoch: -5},
	}
	want := map[string]protocol.Status{"v2": protocol.StatusUnsupportedProtocol,
		"mismatch": protocol.StatusInvalidRequest, "epoch-5": protocol.StatusInvalidRequest}
	for name, req := range cases {
		r, err := h.Service().Heartbeat(ctx, "orders", "g-"+name, "m", req)
		require.NoError(t, err)
		require.Equal(t, want[name], r.Status, name)
		require.NotEmpty(t, r.Message, name)
		require.Equal(t, "r", r.ResponseTo, name)
	}
	keys, err := store.ListGroups(ctx, "")
	require.NoError(t, err)
	require.Empty(t, keys, "rejected heartbeats created groups")
	require.Empty(t, h.Router().ActiveKeys())

	// A valid join still creates the group.
	r, err := h.Service().Heartbeat(ctx, "orders", "g-ok", "m", protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "j", MemberID: "m"})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusOK, r.Status)
	keys, err = store.ListGroups(ctx, "")
	require.NoError(t, err)
	require.Equal(t, []persistence.GroupKey{{StreamPrefix: "orders", ConsumerGroup: "g-ok"}}, keys)
}
