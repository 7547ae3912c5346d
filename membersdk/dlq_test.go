package membersdk

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/stretchr/testify/require"
)

func TestShardDeadLetterKeySharesTheShardsHashTag(t *testing.T) {
	t.Parallel()
	stream := protocol.StreamKey("orders", 3)
	require.Equal(t, "{orders:3}:dlq", ShardDeadLetterKey(stream))
	tag := func(k string) string { return k[strings.IndexByte(k, '{')+1 : strings.IndexByte(k, '}')] }
	require.Equal(t, stream, tag(ShardDeadLetterKey(stream)), "hash tag = the whole shard stream key")
	require.Equal(t, tag(fence.Key(stream, "g")), tag(ShardDeadLetterKey(stream)), "same slot as the shard's fence")
	require.Equal(t, "orders:dlq", DeadLetterKey("orders"))
}

// A configured DeadLetterStream (one stream for every shard) is used as is.
func TestConfiguredDeadLetterStreamIsUsed(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	cfg := testConfig(f, rc, "m0", &ev)
	cfg.MaxDeliveries = 1
	cfg.DeadLetterStream = DeadLetterKey(testStream)
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error { return errors.New("boom") })
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	id := xadd(t, rc, 0, "k", "v")
	eventually(t, func() bool { return ev.has(EventDeadLettered, "m0", 0) }, 5*time.Second, "dead-lettered")
	ctx := context.Background()
	dlq, err := rc.XRange(ctx, "orders:dlq", "-", "+").Result()
	require.NoError(t, err)
	require.Len(t, dlq, 1)
	require.Equal(t, id, dlq[0].Values[DLQFieldOriginID])
	n, err := rc.Exists(ctx, ShardDeadLetterKey(protocol.StreamKey(testStream, 0))).Result()
	require.NoError(t, err)
	require.Zero(t, n, "the per-shard stream is not used")
	require.Equal(t, int64(0), pendingCount(t, rc, 0))
	require.NoError(t, stop())
}

// startClusterNode starts a one-node Redis Cluster (all slots on it) on
// loopback for t: Redis then enforces the Cluster rules, e.g. that every key
// of a script is in one slot (CROSSSLOT otherwise).
func startClusterNode(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server not found on PATH: %v", err)
	}
	port, err := redistest.FreePort()
	require.NoError(t, err)
	dir := t.TempDir()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "",
		"--appendonly", "no", "--protected-mode", "no", "--loglevel", "warning",
		"--cluster-enabled", "yes", "--cluster-config-file", dir+"/nodes.conf")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	rc := redis.NewClient(&redis.Options{Addr: addr})
	defer rc.Close()
	ctx := context.Background()
	eventually(t, func() bool { return rc.Ping(ctx).Err() == nil }, 10*time.Second, "cluster node up")
	require.NoError(t, rc.Do(ctx, "cluster", "addslotsrange", 0, 16383).Err())
	eventually(t, func() bool {
		info, err := rc.ClusterInfo(ctx).Result()
		return err == nil && strings.Contains(info, "cluster_state:ok")
	}, 10*time.Second, "cluster state ok")
	return addr
}

// xaddCounter counts XADD commands a client sends itself (not from inside
// a script).
type xaddCounter struct{ n atomic.Int64 }

func (x *xaddCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (x *xaddCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (x *xaddCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if strings.EqualFold(cmd.Name(), "xadd") {
			x.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

// On Redis Cluster the default dead-letter stream is in the shard's slot:
// the move is the one fenced script (no client-side XADD). A configured
// stream in another slot falls back to XADD + fenced XACK.
func TestDeadLetterMoveIsOneScriptOnRedisCluster(t *testing.T) {
	t.Parallel()
	addr := startClusterNode(t)
	plain := redis.NewClient(&redis.Options{Addr: addr}) // the fake coordinator's fence writes
	t.Cleanup(func() { _ = plain.Close() })
	ctx := context.Background()
	key := protocol.StreamKey(testStream, 0)
	require.NoError(t, plain.XGroupCreateMkStream(ctx, key, testGroup, "0").Err())

	for _, shared := range []bool{false, true} {
		cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr}})
		t.Cleanup(func() { _ = cc.Close() })
		xadds := &xaddCounter{}
		cc.AddHook(xadds)
		f := newFakeCoord(t, 1)
		f.useRedis(plain)
		member := "m" + strconv.FormatBool(shared)
		f.setTarget(member, 0)
		var ev events
		cfg := testConfig(f, cc, member, &ev)
		cfg.MaxDeliveries = 1
		dlq := ShardDeadLetterKey(key)
		if shared {
			cfg.DeadLetterStream = DeadLetterKey(testStream)
			dlq = cfg.DeadLetterStream
		}
		c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error { return errors.New("boom") })
		require.NoError(t, err)
		stop, _ := runConsumer(t, c)
		id := xadd(t, plain, 0, "k", "v")
		eventually(t, func() bool { return ev.has(EventDeadLettered, member, 0) }, 10*time.Second, "dead-lettered (shared %v)", shared)
		got, err := plain.XRange(ctx, dlq, "-", "+").Result()
		require.NoError(t, err)
		require.Len(t, got, 1)
		require.Equal(t, id, got[0].Values[DLQFieldOriginID])
		require.Equal(t, int64(0), pendingCount(t, plain, 0))
		if shared {
			require.Equal(t, int64(1), xadds.n.Load(), "another slot: CROSSSLOT, then a plain XADD")
		} else {
			require.Zero(t, xadds.n.Load(), "same slot: the XADD ran inside the fenced script")
		}
		require.NoError(t, stop())
		f.setTarget(member)
	}
}

func TestDeadLetterAfterMaxDeliveries(t *testing.T) {
	t.Parallel()
	rc := setupRedis(t, 1)
	f := newFakeCoord(t, 1)
	f.setTarget("m0", 0)
	var ev events
	var h handled
	cfg := testConfig(f, rc, "m0", &ev)
	cfg.MaxDeliveries = 3
	c, err := NewConsumer(cfg, func(ctx context.Context, m Message) error {
		h.add(m)
		return errors.New("boom")
	})
	require.NoError(t, err)
	stop, _ := runConsumer(t, c)
	id := xadd(t, rc, 0, "k", "v")
	eventually(t, func() bool { return ev.has(EventDeadLettered, "m0", 0) }, 5*time.Second, "dead-lettered")
	require.Equal(t, 3, h.count())
	for i, m := range h.calls {
		require.Equal(t, int64(i+1), m.DeliveryCount)
	}
	require.Equal(t, int64(0), pendingCount(t, rc, 0))
	dlq, err := rc.XRange(context.Background(), "{orders:0}:dlq", "-", "+").Result()
	require.NoError(t, err)
	require.Len(t, dlq, 1)
	v := dlq[0].Values
	require.Equal(t, "v", v["k"])
	require.Equal(t, "orders:0", v[DLQFieldOriginStream])
	require.Equal(t, id, v[DLQFieldOriginID])
	require.Equal(t, "boom", v[DLQFieldError])
	require.Equal(t, testGroup, v[DLQFieldConsumerGroup])
	require.Equal(t, "3", v[DLQFieldDeliveries])
	require.NoError(t, stop())
}
