package membersdk

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// On MEMBER_ID_IN_USE the consumer stops every shard at once, joins again (epoch 0, owning
// nothing) once per heartbeat interval, and takes over when the coordinator lets it. Every
// heartbeat carries one incarnationId.
func TestMemberIDInUseStopsAndRetriesJoining(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, done := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 3*time.Second, "started")

	var refused atomic.Int32
	var refusedAt []time.Time // written by the fake's handler goroutine, read after refusals end
	f.setScript(func(req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool) {
		if refused.Load() < 4 {
			refusedAt = append(refusedAt, time.Now())
			refused.Add(1)
			return protocol.HeartbeatResponse{Status: protocol.StatusMemberIDInUse, Message: `member id "m0" is in use`}, true
		}
		return protocol.HeartbeatResponse{}, false
	})
	eventually(t, func() bool { return ev.has(EventShardReleased, "m0", 0) }, 3*time.Second, "every shard stopped")
	eventually(t, func() bool { return refused.Load() == 4 }, 5*time.Second, "refused four times")
	eventually(t, func() bool { return len(ev.find(EventShardStarted)) == 2 }, 5*time.Second, "took over once allowed")
	in := ev.find(EventMemberIDInUse)
	require.GreaterOrEqual(t, len(in), 4)
	require.Equal(t, protocol.StatusMemberIDInUse, in[0].Status)
	require.ErrorContains(t, in[0].Err, `"m0"`)
	for i := 2; i < len(refusedAt); i++ { // the first refusal may come right after a release
		require.GreaterOrEqual(t, refusedAt[i].Sub(refusedAt[i-1]), 90*time.Millisecond, "retries at the heartbeat interval (100 ms), not in a tight loop")
	}
	reqs := f.requests("m0")
	inc := reqs[0].IncarnationID
	require.Len(t, inc, 32)
	joins := 0
	for _, r := range reqs {
		require.Equal(t, inc, r.IncarnationID, "one incarnation for the consumer's life")
		if r.MemberEpoch == 0 {
			joins++
			require.Empty(t, r.OwnedShards)
		}
	}
	require.GreaterOrEqual(t, joins, 4, "the first join and the retries")
	select {
	case err := <-done:
		t.Fatalf("Run ended: %v", err)
	default:
	}
	require.NoError(t, stop())

	other, err := NewConsumer(testConfig(f, rc, "m1", &events{}), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	require.NotEqual(t, c.incarnation, other.incarnation, "each consumer has its own")
}

// A 403 MEMBER_OWNED_BY_ANOTHER_PRINCIPAL does not end Run like other 403s: the consumer reads
// nothing and keeps trying to join, as for MEMBER_ID_IN_USE.
func TestOwnedByAnotherPrincipalRetries(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"status":"FORBIDDEN","errorCode":"MEMBER_OWNED_BY_ANOTHER_PRINCIPAL","message":"member \"m0\" of group \"g\" was joined by another principal"}`)
	}))
	t.Cleanup(srv.Close)
	f := newFakeCoord(t, 1)
	var ev events
	cfg := testConfig(f, rc, "m0", &ev)
	cfg.CoordinatorURLs = []string{srv.URL}
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, done := runConsumer(t, c)
	// No answer told it the interval: it retries at the default heartbeat interval.
	eventually(t, func() bool { return len(ev.find(EventMemberIDInUse)) >= 2 }, 2*DefaultHeartbeatInterval+2*time.Second, "refused twice")
	select {
	case err := <-done:
		t.Fatalf("Run ended: %v", err)
	default:
	}
	require.GreaterOrEqual(t, hits.Load(), int32(2))
	require.NoError(t, stop())
}
