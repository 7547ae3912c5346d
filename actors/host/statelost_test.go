package host

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A member reports an epoch and shards that a new (empty) group has never heard of: the store
// lost them. It is told UNKNOWN_MEMBER_ID, and nobody is granted a shard for a lease, since it
// may still be reading them until its lease runs out.
func TestUnknownClaimInAnEmptyGroupHoldsGrants(t *testing.T) {
	mem, prov := newQuickStore(t)
	h := quickHost(t, mem, prov, "n1")
	ghost := beat(t, h, "ghost", 7, protocol.ShardIDs([]int{0, 2}))
	require.Equal(t, protocol.StatusUnknownMemberID, ghost.Status)
	j := beat(t, h, "j", 0, nil)
	require.Equal(t, protocol.StatusOK, j.Status)
	require.Empty(t, j.Assignment.AssignedShards, "a shard was granted while a member the store forgot may still read it")
	require.Len(t, j.Assignment.PendingShards, 4)
	health := h.Service().Health(context.Background())
	require.Equal(t, "DEGRADED", health.Status)
	require.NotNil(t, health.StateLost)
	require.Contains(t, health.StateLost.Reason, "ghost")

	// A claim in a group that has members is the rules' business (fenced/unknown), not a hold.
	mem2, prov2 := newQuickStore(t)
	h2 := quickHost(t, mem2, prov2, "n2")
	require.Len(t, beat(t, h2, "a", 0, nil).Assignment.AssignedShards, 4)
	require.Equal(t, protocol.StatusUnknownMemberID, beat(t, h2, "ghost", 7, protocol.ShardIDs([]int{0})).Status)
	require.Nil(t, h2.Service().Health(context.Background()).StateLost)
}
