package node

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

func TestEvictedByPeers(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	reg := func(node string, at int, blocked ...string) persistence.NodeRegistration {
		return persistence.NodeRegistration{Owner: node + "/x", NodeID: node, ClusterName: "rsc", MemberID: "m-" + node,
			Address: node + ":1", Blocked: blocked, RegisteredAt: t0.Add(time.Duration(at) * time.Second)}
	}
	a, b, c := reg("a", 1), reg("b", 2), reg("c", 3)

	// Nobody blocked b.
	_, ev := evictedByPeers(b, []persistence.NodeRegistration{a, c})
	require.False(t, ev)
	// b was paused: a and c evicted it (the three-node partition test).
	blockers, ev := evictedByPeers(b, []persistence.NodeRegistration{reg("a", 1, "m-b"), reg("c", 3, "m-b")})
	require.True(t, ev)
	require.Len(t, blockers, 2)
	// Paused for longer than gossip's expiry, b also blocked a and c; they are not
	// evicted by one vote of two.
	bb := reg("b", 2, "m-a", "m-c")
	_, ev = evictedByPeers(a, []persistence.NodeRegistration{bb, reg("c", 3, "m-b")})
	require.False(t, ev)
	// b paused for longer than gossip's expiry blocked a and c too: still the minority.
	_, ev = evictedByPeers(bb, []persistence.NodeRegistration{reg("a", 1, "m-b"), reg("c", 3, "m-b")})
	require.True(t, ev)
	// Two nodes, the earlier one paused and evicted by the later: the silent one yields
	// (it did not block the other), the other stays.
	_, ev = evictedByPeers(reg("a", 1), []persistence.NodeRegistration{reg("b", 2, "m-a")})
	require.True(t, ev)
	_, ev = evictedByPeers(reg("b", 2, "m-a"), []persistence.NodeRegistration{reg("a", 1)})
	require.False(t, ev)
	// Two nodes cut apart block each other: the later one yields, the earlier stays.
	_, ev = evictedByPeers(reg("b", 2, "m-a"), []persistence.NodeRegistration{reg("a", 1, "m-b")})
	require.True(t, ev)
	_, ev = evictedByPeers(reg("a", 1, "m-b"), []persistence.NodeRegistration{reg("b", 2, "m-a")})
	require.False(t, ev)
	// Peers of another cluster, refusing peers and single nodes do not vote.
	other := reg("x", 0, "m-b")
	other.ClusterName = "blue"
	refusing := reg("y", 0, "m-b")
	refusing.Refusing = true
	single := reg("z", 0, "m-b")
	single.MemberID = ""
	_, ev = evictedByPeers(b, []persistence.NodeRegistration{other, refusing, single, a, c})
	require.False(t, ev)
	// A single-provider node is never evicted.
	b.MemberID = ""
	_, ev = evictedByPeers(b, []persistence.NodeRegistration{reg("a", 1, "m-b")})
	require.False(t, ev)
}
