package membersdk

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A heartbeat hanging on a coordinator that went silent is abandoned within the
// heartbeat interval the coordinator last told, although the request timeout is
// longer, and the next one is sent at once: a member that can reach the
// coordinator reports itself within one interval (docs/RELIABILITY.md, "A new
// data set").
func TestHangingHeartbeatIsRetriedWithinOneInterval(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	const interval = 300 * time.Millisecond
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, err := protocol.DecodeHeartbeat(body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		n := len(arrivals)
		mu.Unlock()
		if n == 2 {
			<-r.Context().Done() // silent: the member must give up by itself
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(protocol.HeartbeatResponse{Status: protocol.StatusOK, ResponseTo: req.RequestID, MemberID: req.MemberID,
			MemberEpoch: 1, HeartbeatIntervalMs: interval.Milliseconds(), MemberLeaseTTLMs: 10_000, RebalanceTimeoutMs: 2000,
			Assignment: protocol.Assignment{AssignedShards: []protocol.ShardID{}, PendingShards: []protocol.ShardID{}}})
	}))
	t.Cleanup(srv.Close)
	f := newFakeCoord(t, 1)
	cfg := testConfig(f, rc, "m0", &events{})
	cfg.CoordinatorURLs = []string{srv.URL}
	cfg.RequestTimeout = 5 * time.Second // longer than the interval, as DefaultRequestTimeout is
	cfg.RetryInterval = interval
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(arrivals) >= 3 }, 4*time.Second, "no heartbeat after the hanging one")
	require.NoError(t, stop())
	mu.Lock()
	defer mu.Unlock()
	gap := arrivals[2].Sub(arrivals[1])
	require.GreaterOrEqual(t, gap, interval*9/10, "the hanging heartbeat was not given its interval")
	require.Less(t, gap, interval+interval/2, "the next heartbeat came %s after the hanging one (interval %s)", gap, interval)
}

// A member's log says why its shards are pending (the coordinator's message).
func TestPendingReasonIsLogged(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 2)
	f := newFakeCoord(t, 1)
	const why = "new coordinator data set (Redis held no coordinator state): waiting about one heartbeat interval"
	f.setScript(func(req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool) {
		return protocol.HeartbeatResponse{Status: protocol.StatusOK, MemberEpoch: 1, MetadataVersion: 1, Message: why,
			Assignment: protocol.Assignment{AssignedShards: protocol.ShardIDs([]int{0}), PendingShards: protocol.ShardIDs([]int{1})}}, true
	})
	var logs syncBuffer
	cfg := testConfig(f, rc, "m0", &events{})
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return bytes.Contains([]byte(logs.String()), []byte("pendingReason=")) }, 3*time.Second, "no pendingReason in the log")
	require.NoError(t, stop())
	require.Contains(t, logs.String(), `msg=assignment`)
	require.Contains(t, logs.String(), `assigned=[0] pending=[1] pendingReason="`+why+`"`)
}
