package membersdk

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/stretchr/testify/require"
)

func TestConsumerSurvivesRedisRestart(t *testing.T) {
	t.Parallel()
	rs := redistest.StartWithOptions(t, redistest.Options{Persist: true})
	rc := rs.NewClient(&redis.Options{MaxRetries: -1, DialTimeout: 200 * time.Millisecond, ReadTimeout: 500 * time.Millisecond})
	t.Cleanup(func() { _ = rc.Close() })
	require.NoError(t, rc.XGroupCreateMkStream(context.Background(), "orders:0", testGroup, "0").Err())
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var mu sync.Mutex
	seen := map[string]bool{}
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error {
		mu.Lock()
		seen[m.Values["n"].(string)] = true
		mu.Unlock()
		return nil
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 0) }, 3*time.Second, "started")
	publish := func(from, to int) {
		for i := from; i < to; i++ {
			require.NoError(t, rc.XAdd(context.Background(), &redis.XAddArgs{Stream: "orders:0", Values: []any{"n", i}}).Err())
		}
	}
	publish(0, 20)
	rs.Stop()
	time.Sleep(400 * time.Millisecond) // the outage lasts 400ms: the scenario, not a wait for a result
	rs.Restart()
	publish(20, 40)
	eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == 40
	}, 10*time.Second, "every entry handled across the restart")
	eventually(t, func() bool { return pendingCount(t, rc, 0) == 0 }, 5*time.Second, "all acked")
	require.False(t, ev.has(EventShardReleased, "m0", 0), "a Redis hiccup does not give the shard up")
	require.NoError(t, stop())
}

func TestAuthHeaders(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	var logins atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/coord/v1/auth/login" {
			logins.Add(1)
			var lr protocol.LoginRequest
			_ = json.NewDecoder(r.Body).Decode(&lr)
			if lr.Username != "svc" || lr.Password != "pw" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			_ = json.NewEncoder(w).Encode(protocol.LoginResponse{AccessToken: "tok-1", TokenType: "Bearer", ExpiresInSeconds: 3600})
			return
		}
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(protocol.Routing(testStream, testGroup, 1, 1))
	}))
	t.Cleanup(srv.Close)
	rc := nilRedis()
	defer rc.Close()
	for _, auth := range []Auth{
		{Username: "svc", Password: "pw"},
		{BearerToken: "static"},
		{TokenFunc: LoginTokenFunc([]string{srv.URL}, "svc", "pw", nil)},
	} {
		p, err := NewProducer(ProducerConfig{CoordinatorURLs: []string{srv.URL}, StreamPrefix: testStream, ConsumerGroup: testGroup, Redis: rc, Auth: auth})
		require.NoError(t, err)
		_, err = p.Routing(context.Background())
		require.NoError(t, err)
		p.Invalidate()
		_, err = p.Routing(context.Background())
		require.NoError(t, err)
	}
	require.Equal(t, []string{"Basic c3ZjOnB3", "Basic c3ZjOnB3", "Bearer static", "Bearer static", "Bearer tok-1", "Bearer tok-1"}, got)
	require.Equal(t, int32(1), logins.Load(), "token cached")
	_, err := LoginTokenFunc([]string{srv.URL}, "svc", "wrong", nil)(context.Background())
	require.Error(t, err)
}

func TestLeaveWithCoordinatorDownDoesNotHang(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 2)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0, 1)
	var ev events
	c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { return nil })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	eventually(t, func() bool { return ev.has(EventShardStarted, "m0", 1) }, 3*time.Second, "started")
	f.setDown(0, true)
	eventually(t, func() bool { return ev.has(EventHeartbeatFailed, "m0", -1) }, 3*time.Second, "coordinator down noticed")
	start := time.Now()
	require.NoError(t, stop())
	require.Less(t, time.Since(start), 2*time.Second)
	left := ev.find(EventLeft)
	require.Len(t, left, 1)
	require.Error(t, left[0].Err, "the final leave could not be delivered")
}
