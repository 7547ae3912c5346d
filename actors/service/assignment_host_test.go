package service_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/service"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// The assignment mode travels service → router → group actor → rules and is stored with the
// group's meta (groupstate/capacity.go).
func TestSetAssignmentStoredWithTheGroup(t *testing.T) {
	h, store, _ := newLimitedHost(t, service.Limits{})
	svc, ctx := h.Service(), context.Background()

	g, err := svc.CreateGroup(ctx, "orders", "workers", protocol.CreateGroupRequest{RequestedBy: "ops", Assignment: protocol.AssignmentCapacity})
	require.NoError(t, err)
	require.Equal(t, protocol.AssignmentCapacity, g.Assignment)
	snap, err := store.LoadGroup(ctx, workers)
	require.NoError(t, err)
	require.Contains(t, string(snap.Meta), `"assignment":"capacity"`)

	g, err = svc.SetAssignment(ctx, "orders", "workers", protocol.SetAssignmentRequest{Assignment: protocol.AssignmentUniform, RequestedBy: "ops"})
	require.NoError(t, err)
	require.Equal(t, protocol.AssignmentUniform, g.Assignment)
	snap, err = store.LoadGroup(ctx, workers)
	require.NoError(t, err)
	require.NotContains(t, string(snap.Meta), `"assignment"`, "uniform is stored as before the setting existed")

	_, err = svc.SetAssignment(ctx, "orders", "workers", protocol.SetAssignmentRequest{Assignment: "fair", RequestedBy: "ops"})
	require.ErrorIs(t, err, coordinator.ErrInvalidArgument)
	require.ErrorContains(t, err, `"capacity"`)
	_, err = svc.SetAssignment(ctx, "orders", "nobody", protocol.SetAssignmentRequest{Assignment: protocol.AssignmentCapacity, RequestedBy: "ops"})
	require.ErrorIs(t, err, coordinator.ErrGroupNotFound)
	_, err = svc.CreateGroup(ctx, "orders", "other", protocol.CreateGroupRequest{RequestedBy: "ops", Assignment: "weighted"})
	require.ErrorIs(t, err, coordinator.ErrInvalidArgument)
	_, err = store.LoadGroup(ctx, persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "other"})
	require.ErrorIs(t, err, persistence.ErrNotFound, "a refused creation stores nothing")
}
