package host

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// HostedGroups lists only the activations on this node, with the unowned
// shard count from the group's own state; an idle node lists nothing and a
// passivated group drops out.
func TestHostedGroupsListsActivationsOnly(t *testing.T) {
	mem, prov := newQuickStore(t)
	h := quickHost(t, mem, prov, "n1")
	got, failed := h.HostedGroups(time.Second)
	require.Empty(t, got)
	require.Empty(t, failed)

	r := beat(t, h, "a", 0, nil)
	require.Equal(t, protocol.StatusOK, r.Status)
	got, failed = h.HostedGroups(time.Second)
	require.Empty(t, failed)
	require.Len(t, got, 1)
	require.Equal(t, workers, got[0].Key)
	require.Equal(t, 4, got[0].ShardCount)
	require.Equal(t, 4-len(r.Assignment.AssignedShards), got[0].Unowned)

	require.Equal(t, protocol.StatusOK, beat(t, h, "a", -1, nil).Status)
	require.Eventually(t, func() bool { g, _ := h.HostedGroups(time.Second); return len(g) == 0 },
		5*time.Second, 20*time.Millisecond, "a passivated group is not hosted")
}
