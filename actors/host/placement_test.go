package host

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence/memstore"
)

// A member joining the cluster marks a placement move for one lease + interval; a member
// leaving (or the same list again) does not.
func TestPlacementMovedAfterAJoinOnly(t *testing.T) {
	h := New(Options{Store: memstore.New(), Provisioner: memstore.NewProvisioner(), NodeID: "n1", Rules: quickRules})
	t.Cleanup(h.Stop)
	a, b := memberView{ID: "a", Addr: "x:1"}, memberView{ID: "b", Addr: "x:2"}
	h.notePlacementMove(nil, []memberView{a})
	require.True(t, nodeSide{h}.PlacementMoved(), "the first member list is a join")
	h.cl.joinedAt = time.Now().Add(-quickRules.LeaseTTL - quickRules.HeartbeatInterval)
	require.False(t, nodeSide{h}.PlacementMoved(), "a join longer ago than a lease")
	h.notePlacementMove([]memberView{a, b}, []memberView{a})
	require.False(t, nodeSide{h}.PlacementMoved(), "a member leaving is not a join")
	h.notePlacementMove([]memberView{a}, []memberView{a, b})
	require.True(t, nodeSide{h}.PlacementMoved())
}
