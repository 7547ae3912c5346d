package host

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The rejoin gate's bookkeeping of member lists: a list with the same
// members does not restart the settle window, and an address that left is
// "departed" until it comes back (a restarted node on its old address).
func TestMemberListChangesAndDepartures(t *testing.T) {
	a, b, c := memberView{"ida", "A"}, memberView{"idb", "B"}, memberView{"idc", "C"}
	b2 := memberView{"idb2", "B"} // B restarted: new member id, same address
	require.True(t, sameMembers([]memberView{a, b}, []memberView{b, a}))
	require.False(t, sameMembers([]memberView{a, b}, []memberView{a, b2}))
	require.False(t, sameMembers([]memberView{a, b}, []memberView{a, b, c}))

	d := noteDeparted(nil, []memberView{a, b, c}, []memberView{a, c})
	require.Equal(t, map[string]bool{"B": true}, d)
	d = noteDeparted(d, []memberView{a, c}, []memberView{a})
	require.Equal(t, map[string]bool{"B": true, "C": true}, d)
	d = noteDeparted(d, []memberView{a}, []memberView{a, b2})
	require.Equal(t, map[string]bool{"C": true}, d, "B came back")
}
