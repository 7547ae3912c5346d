package handover

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate"
)

func TestHandoverEncodingRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	leases := map[string]groupstate.Lease{
		"live":       {LastHeartbeat: at.Add(-2 * time.Second), Deadline: at.Add(13 * time.Second), RevokeDeadline: at.Add(time.Minute)},
		"passed":     {LastHeartbeat: at.Add(-20 * time.Second), Deadline: at.Add(-5*time.Second - 500*time.Nanosecond)},
		"granted":    {Deadline: at.Add(7*time.Second + 1)}, // no heartbeat since a fresh lease; 1ns rounds up
		"odd id\n{}": {Deadline: at},
	}
	b := Encode(leases, at)
	// The next activation runs on a clock 1h ahead; the release was 3s before it.
	next := at.Add(time.Hour)
	got, err := Decode(b, next)
	require.NoError(t, err)
	shift := next.Sub(at)
	require.Len(t, got, len(leases))
	for id, l := range leases {
		g := got[id]
		require.Equal(t, l.LastHeartbeat.IsZero(), g.LastHeartbeat.IsZero(), id)
		require.Equal(t, l.RevokeDeadline.IsZero(), g.RevokeDeadline.IsZero(), id)
		require.False(t, g.Deadline.Before(l.Deadline.Add(shift)), "%s: a deadline is never handed over earlier", id)
		require.Less(t, g.Deadline.Sub(l.Deadline.Add(shift)), time.Microsecond, id)
		if !l.LastHeartbeat.IsZero() {
			require.Equal(t, l.LastHeartbeat.Add(shift), g.LastHeartbeat, id)
		}
		if !l.RevokeDeadline.IsZero() {
			require.Equal(t, l.RevokeDeadline.Add(shift), g.RevokeDeadline, id)
		}
	}

	_, err = Decode([]byte(`{"v":2,"members":{}}`), next)
	require.Error(t, err, "another format is ignored")
	_, err = Decode([]byte(`not json`), next)
	require.Error(t, err)
	_, err = Decode([]byte(`{"v":1,"members":{"a":{"lease":9000000000000000}}}`), next)
	require.Error(t, err, "an offset that would overflow a duration is refused")
}
