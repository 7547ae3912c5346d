package host

import (
	"testing"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/persistence"
)

// The rejoin gate's bookkeeping of member lists: a list with the same
// members does not move the change time, and a member id that left is
// "departed" until it comes back (a restarted node has a new member id at
// its old address: the old id stays departed).
func TestMemberListChangesAndDepartures(t *testing.T) {
	a, b, c := memberView{"ida", "A"}, memberView{"idb", "B"}, memberView{"idc", "C"}
	b2 := memberView{"idb2", "B"} // B restarted: new member id, same address
	require.True(t, sameMembers([]memberView{a, b}, []memberView{b, a}))
	require.False(t, sameMembers([]memberView{a, b}, []memberView{a, b2}))
	require.False(t, sameMembers([]memberView{a, b}, []memberView{a, b, c}))

	d := noteDeparted(nil, []memberView{a, b, c}, []memberView{a, c})
	require.Equal(t, map[string]bool{"idb": true}, d)
	d = noteDeparted(d, []memberView{a, c}, []memberView{a})
	require.Equal(t, map[string]bool{"idb": true, "idc": true}, d)
	d = noteDeparted(d, []memberView{a}, []memberView{a, b2, c})
	require.Equal(t, map[string]bool{"idb": true}, d, "C came back; B's old process did not")
}

// The gate's placement is the placement actor's: the same rendezvous over
// the same members, and the first list counts as a change.
func TestPlacementFollowsTheMemberList(t *testing.T) {
	mem, prov := newQuickStore(t)
	h := New(Options{Store: mem, Provisioner: prov, NodeID: "n1", Rules: quickRules})
	t.Cleanup(h.Stop)
	key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "workers"}
	side := nodeSide{h}
	require.Empty(t, side.Placement(key).Owner, "no list yet")

	members := []*cluster.Member{{Host: "h", Port: 1, Id: "m1", Kinds: []string{group.Kind}}, {Host: "h", Port: 2, Id: "m2", Kinds: []string{group.Kind}}}
	views := []memberView{{"m1", "h:1"}, {"m2", "h:2"}}
	h.cl.mu.Lock()
	h.notePlacement(nil, views, members)
	h.cl.mu.Unlock()
	p := side.Placement(key)
	rdv := cluster.NewRendezvous()
	rdv.UpdateMembers(members)
	require.Equal(t, rdv.GetByIdentity(group.Kind+"/"+group.IdentityOf(key)), p.Owner)
	require.False(t, p.ChangedAt.IsZero())
	require.Equal(t, map[string]string{"m1": "h:1", "m2": "h:2"}, p.Listed)

	first := p.ChangedAt
	h.cl.mu.Lock()
	h.notePlacement(views, views, members)
	h.cl.mu.Unlock()
	require.Equal(t, first, side.Placement(key).ChangedAt, "same members: no change")
}
