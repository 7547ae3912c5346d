package group

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/events"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// The stored record is the ring with the new events added (the ring itself
// waits for the write), newest first, and restores to the same list; a
// record longer than the bound keeps the newest, a broken one restores to
// none.
func TestRecentEventsRecordRoundTrip(t *testing.T) {
	var r events.Ring
	for i := 0; i < events.MaxRecent-1; i++ {
		r.Add(protocol.MemberEvent{MemberID: fmt.Sprint(i), State: "FENCED", MemberEpoch: int64(i)})
	}
	evs := []protocol.MemberEvent{{MemberID: "x", State: "EXPIRED"}, {MemberID: "y", State: "FENCED", Cause: "stale"}}
	rec := r.EncodeWith(evs)
	require.Len(t, r.List(), events.MaxRecent-1, "the ring is unchanged until the write succeeds")

	var got events.Ring
	got.Restore(rec)
	l := got.List()
	require.Len(t, l, events.MaxRecent, "bounded")
	require.Equal(t, "y", l[0].MemberID, "newest first")
	require.Equal(t, "x", l[1].MemberID)
	require.Equal(t, "1", l[len(l)-1].MemberID, "the oldest one fell out")
	for _, e := range evs {
		r.Add(e)
	}
	require.Equal(t, r.List(), l, "what is stored is what the ring then holds")

	long := make([]protocol.MemberEvent, events.MaxRecent+5)
	for i := range long {
		long[i] = protocol.MemberEvent{MemberID: fmt.Sprint(i)}
	}
	b, err := json.Marshal(long)
	require.NoError(t, err)
	got.Restore(b)
	require.Len(t, got.List(), events.MaxRecent)
	require.Equal(t, "0", got.List()[0].MemberID, "the newest of a longer record are kept")

	got.Restore([]byte("{not json"))
	require.Empty(t, got.List())
	got.Restore(nil)
	require.Empty(t, got.List())
}
