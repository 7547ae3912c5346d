package host

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// A local heartbeat sent to a group actor that has stopped (the registry still named it) is
// reported back as a dead letter and sent once more to a fresh activation: the member gets its
// answer, not a RETRY after the wait ran out.
func TestLocalHeartbeatToAStoppedActorIsAskedAgain(t *testing.T) {
	h, _ := newTestHost(t)
	ctx := context.Background()
	key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "g"}
	r, err := h.Heartbeat(ctx, "orders", "g", "m", protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "j", MemberID: "m"})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusOK, r.Status)

	stale, ok := h.active(key)
	require.True(t, ok)
	require.NoError(t, h.system.Root.StopFuture(stale).Wait())
	h.mu.Lock()
	h.groups[key] = stale // as if looked up just before it stopped
	h.mu.Unlock()

	r, err = h.Heartbeat(ctx, "orders", "g", "m", protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "b", MemberID: "m",
		MemberEpoch: r.MemberEpoch, MetadataVersion: r.MetadataVersion, OwnedShards: r.Assignment.AssignedShards})
	require.NoError(t, err)
	// Without the dead-letter report the ask would wait out its deadline and answer RETRY.
	require.Equal(t, protocol.StatusOK, r.Status, r.Message)
	_, ok = h.active(key)
	require.True(t, ok, "a fresh activation is registered")
}
