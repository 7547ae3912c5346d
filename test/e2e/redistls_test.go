package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/internal/tlsfiles/testca"
	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// A Redis that speaks TLS only and requires client certificates
// (--tls-port, --tls-auth-clients yes) signed by a private CA, as a managed
// Redis with mutual TLS does. The coordinator (redis.tls-*), the member SDK
// (membersdk.RedisTLS: consume and fenced acks, publishing) and the Redis
// mailbox transport all work over it; a client without a certificate is
// refused.
func TestRedisOverMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca := testca.New(t, "rsc test Redis CA")
	server := ca.Write(t, dir, "redis", ca.Issue(t, "redis", testca.Options{}))
	client := ca.Write(t, dir, "client", ca.Issue(t, "coordinator", testca.Options{}))
	rt := membersdk.RedisTLS{CAFile: client.CA, CertFile: client.Cert, KeyFile: client.Key, ServerName: "127.0.0.1"}
	tc, err := rt.Config()
	require.NoError(t, err)
	r := redistest.StartWithOptions(t, redistest.Options{TLS: &redistest.TLS{
		CertFile: server.Cert, KeyFile: server.Key, CAFile: server.CA, AuthClients: true, Client: tc,
	}})

	// A client without a certificate (trusting the CA) is refused.
	noCert := redis.NewClient(&redis.Options{Addr: r.Addr(), TLSConfig: &tls.Config{RootCAs: tc.RootCAs, ServerName: "127.0.0.1"}, MaxRetries: -1})
	defer noCert.Close()
	require.Error(t, noCert.Ping(context.Background()).Err(), "Redis refuses a client without a certificate")
	plain := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1, ReadTimeout: time.Second})
	defer plain.Close()
	require.Error(t, plain.Ping(context.Background()).Err(), "and a plaintext client")

	settings := map[string]string{
		"RSC_REDIS_TLS": "true", "RSC_REDIS_TLS_CA_FILE": client.CA, "RSC_REDIS_TLS_CERT_FILE": client.Cert, "RSC_REDIS_TLS_KEY_FILE": client.Key,
		"RSC_MAILBOX_ENABLED": "true", "RSC_MAILBOX_BLOCK": "200ms",
	}
	for k, v := range fastTiming {
		settings[k] = v
	}
	coord := harness.StartCoordinator(t, harness.Options{RedisAddr: r.Addr(), Env: settings})
	e := &env{redis: r, coord: coord, c: harness.NewClient(coord.URL())}
	require.Contains(t, coord.Logs(), "Redis over TLS")

	// The protocol walkthrough over HTTP, its state and fences in Redis over TLS.
	e.c.CreateStream(t, "orders", 4)
	a, b := e.member("a"), e.member("b")
	settled := func() bool { return len(a.Shards())+len(b.Shards()) == 4 && len(a.Shards()) == 2 }
	for i := 0; i < 40 && !settled(); i++ {
		for _, m := range []*harness.Member{a, b} {
			m.Release()
			m.Beat(t)
		}
	}
	require.True(t, settled(), "a and b share the 4 shards: a %v, b %v", a.Shards(), b.Shards())
	singleOwner(t, e, a, b)

	// The mailbox transport: a member heartbeating through Redis, over TLS.
	mb := harness.NewMember(e.c, "orders", "mailbox", "c")
	mb.Via = &harness.Mailbox{RDB: r.Client()}
	var got protocol.HeartbeatResponse
	for i := 0; i < 20 && len(mb.Shards()) < 4; i++ {
		got = mb.Beat(t)
	}
	require.Equal(t, protocol.StatusOK, got.Status)
	require.Len(t, mb.Shards(), 4, "a member of another group gets every shard through the mailbox")

	// The SDK: a producer and a consumer on their own TLS clients, with
	// fenced acknowledgements.
	newRDB := func() *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: r.Addr(), TLSConfig: tc})
		t.Cleanup(func() { c.Close() })
		return c
	}
	p, err := membersdk.NewProducer(membersdk.ProducerConfig{CoordinatorURLs: []string{coord.URL()}, StreamPrefix: "orders",
		ConsumerGroup: "sdk", Redis: newRDB()})
	require.NoError(t, err)
	const n = 40
	for i := range n {
		_, err := p.Publish(context.Background(), fmt.Sprint("key-", i), map[string]any{"seq": i})
		require.NoError(t, err)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	var fenced int
	cons, err := membersdk.NewConsumer(membersdk.ConsumerConfig{CoordinatorURLs: []string{coord.URL()}, StreamPrefix: "orders",
		ConsumerGroup: "sdk", MemberID: "sdk-0", Redis: newRDB(), BlockTimeout: 200 * time.Millisecond},
		func(_ context.Context, m membersdk.Message) error {
			mu.Lock()
			defer mu.Unlock()
			seen[fmt.Sprint(m.Values["seq"])] = true
			if m.FencingToken > 0 {
				fenced++
			}
			return nil
		})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cons.Run(ctx) }()
	defer func() { cancel(); <-done }()
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == n
	}, 30*time.Second, 50*time.Millisecond, "the SDK consumed every entry over TLS")
	require.Eventually(t, func() bool {
		for s := 0; s < 4; s++ {
			pe, err := r.Client().XPending(context.Background(), protocol.StreamKey("orders", s), "sdk").Result()
			if err != nil || pe.Count > 0 {
				return false
			}
		}
		return true
	}, 10*time.Second, 50*time.Millisecond, "and acknowledged every one")
	mu.Lock()
	require.Equal(t, n, fenced, "every entry was handled under a fencing token")
	mu.Unlock()

	// A server name the certificate does not carry: the start says which
	// key to fix (and answers RETRY meanwhile).
	bad := map[string]string{"RSC_REDIS_TLS_SERVER_NAME": "redis.elsewhere.example", "RSC_MAILBOX_ENABLED": "false"}
	for k, v := range settings {
		if _, set := bad[k]; !set {
			bad[k] = v
		}
	}
	wrong := harness.StartCoordinator(t, harness.Options{RedisAddr: r.Addr(), Env: bad})
	require.Eventually(t, func() bool {
		return strings.Contains(wrong.Logs(), `does not carry the name \"redis.elsewhere.example\"`) &&
			strings.Contains(wrong.Logs(), "set redis.tls-server-name")
	}, 10*time.Second, 100*time.Millisecond, "the log names redis.tls-server-name:\n%s", wrong.Logs())
}
