package membersdk

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// Every heartbeat carries a fresh random (version 4) UUID as requestId.
func TestHeartbeatRequestIDsAreRandomUUIDs(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(context.Context, Message) error { return nil })
	require.NoError(t, err)
	runConsumer(t, c)
	eventually(t, func() bool { return len(f.requests("m0")) >= 3 }, 5*time.Second, "three heartbeats")
	seen := map[string]bool{}
	for _, r := range f.requests("m0") {
		id, err := uuid.Parse(r.RequestID)
		require.NoError(t, err, "requestId %q", r.RequestID)
		require.Equal(t, uuid.Version(4), id.Version(), "requestId %q", r.RequestID)
		require.False(t, seen[r.RequestID], "requestId %q repeated", r.RequestID)
		seen[r.RequestID] = true
	}
}
