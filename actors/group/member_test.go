package group

import (
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/require"
)

// A member actor finds its member id in its own name, whatever the id contains and whichever
// name it was spawned under (the plain one, or a numbered one while the plain one is taken).
func TestMemberActorNameCarriesItsMemberID(t *testing.T) {
	parent := actor.NewPID("nonhost", "group/orders/billing")
	for _, id := range []string{"10.0.3.7-m0", "a/b", "member/x", "m#1/y", "x-$1", "사용자-42", " "} {
		for attempt := 0; attempt < 3; attempt++ {
			self := actor.NewPID("nonhost", parent.Id+"/"+memberActorName(id, attempt))
			require.Equal(t, id, memberIDOf(self, parent), "id %q, attempt %d", id, attempt)
		}
	}
	require.NotEqual(t, memberActorName("a", 0), memberActorName("a", 1))
	require.NotEqual(t, memberActorName("a", 1), memberActorName("a", 2))
}
