package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// beatLocked is lossOracle.beat for members heartbeating from several goroutines (mu
// guards their views and the oracle); a request that gets no answer returns an error.
func (o *lossOracle) beatLocked(mu *sync.Mutex, m *harness.Member, others ...*harness.Member) error {
	mu.Lock()
	m.Release()
	before, req := readingSet(m), m.Request()
	mu.Unlock()
	sent := time.Now()
	var r protocol.HeartbeatResponse
	status, raw, err := m.C.Do("POST", harness.HeartbeatPath(m.Prefix, m.Group, m.ID), req, &r)
	if err == nil && status != 200 {
		err = fmt.Errorf("status %d: %s", status, raw)
	}
	if err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	o.record(m, before, sent, r, others...)
	return nil
}

// Redis loses everything and the coordinator restarts at the same moment, while member a
// reads every shard and its heartbeat in flight hangs (the old process' host went silent:
// a proxy holds the request for a minute). a follows the protocol's rule
// (docs/PROTOCOL.md): each heartbeat attempt is bounded to the heartbeat interval and the
// next starts at the latest one interval after the previous one started — as the SDK does.
// Member b activates the group in the new process right after a's request started hanging,
// so a's next request reaches the new process about one interval later: inside the new data
// set's quiet wait (1.25 intervals), which then holds the group. Nobody is told to read a
// shard another member may still read. With a's attempts bounded by the SDK's former 5 s
// request timeout instead, b is granted a's shards (checked by hand).
func TestFlushAllRestartWithAHangingRequest(t *testing.T) {
	// A 1 s interval (not fastTiming's 250 ms): the margin is a quarter of it, and a loaded
	// machine's scheduling delays must not eat it.
	interval, ttl := time.Second, 6*time.Second
	e := start(t, map[string]string{"RSC_STORE_TRUST_EMPTY_STORE": "false",
		"RSC_COORDINATION_HEARTBEAT_INTERVAL": "1s", "RSC_COORDINATION_MEMBER_LEASE_TTL": "6s", "RSC_COORDINATION_REBALANCE_TIMEOUT": "3s"})
	e.c.CreateStream(t, "orders", 4)
	proxy := harness.StartSlowProxy(t, e.coord.URL())
	aClient := harness.NewClient(proxy.URL())
	aClient.HTTP.Timeout = interval // the protocol's rule: an attempt lasts at most one interval
	a := harness.NewMember(aClient, "orders", "workers", "a")
	b := e.member("b")
	o := &lossOracle{ttl: ttl, deadline: map[string]time.Time{}}
	var mu sync.Mutex
	for deadline := time.Now().Add(10 * time.Second); len(a.Shards()) < 4; time.Sleep(250 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "a never got its shards")
		require.NoError(t, o.beatLocked(&mu, a))
	}

	require.NoError(t, e.redis.Client().FlushAll(context.Background()).Err())
	e.coord.Restart()
	e.c.CreateStream(t, "orders", 4) // the provisioning job

	// a's heartbeat hangs; its next attempts (new connections) reach the new process.
	proxy.SetDelay(time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	aDone := make(chan struct{})
	go func() {
		defer close(aDone)
		for ctx.Err() == nil {
			started := time.Now()
			_ = o.beatLocked(&mu, a, b)
			select {
			case <-ctx.Done():
			case <-time.After(time.Until(started.Add(interval))):
			}
		}
	}()
	defer func() { cancel(); <-aDone }()
	for deadline := time.Now().Add(5 * time.Second); proxy.Held() == 0; time.Sleep(5 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "a's request never reached the proxy")
	}
	proxy.SetDelay(0)

	sawLoss := false
	for end := time.Now().Add(ttl + 4*interval); ; time.Sleep(250 * time.Millisecond) {
		require.NoError(t, o.beatLocked(&mu, b, a))
		if health(t, e).StateLost != nil {
			sawLoss = true
		}
		mu.Lock()
		done := time.Now().After(end) && len(a.Shards())+len(b.Shards()) == 4
		mu.Unlock()
		if done {
			break
		}
		require.True(t, time.Now().Before(end.Add(10*time.Second)), "grants did not resume after the hold")
	}
	cancel()
	<-aDone
	require.Empty(t, o.bad, "single-owner violations")
	require.True(t, sawLoss, "health never reported the lost state")
	require.Contains(t, e.coord.Logs(), "Redis lost coordinator state")
}
