package membersdk

import (
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/api/protocol"
	"github.com/stretchr/testify/require"
)

func TestDefaultMemberIDFromPodIP(t *testing.T) {
	t.Setenv(EnvPodIP, "10.0.3.7")
	require.Equal(t, "10.0.3.7-m0", DefaultMemberID(0))
	require.Equal(t, "10.0.3.7-m2", DefaultMemberID(2))

	t.Setenv(EnvPodIP, "fd00::1")
	require.Equal(t, "fd00::1-m1", DefaultMemberID(1))
	require.NoError(t, protocol.ValidateMemberID(DefaultMemberID(1)))

	t.Setenv(EnvPodIP, "")
	host, err := os.Hostname()
	require.NoError(t, err)
	require.Equal(t, sanitizeMemberID(host)+"-m3", DefaultMemberID(3))
	require.NoError(t, protocol.ValidateMemberID(DefaultMemberID(3)))
	require.Equal(t, "a-b-m0", sanitizeMemberID("a b")+"-m0")
}

func TestConsumerConfigDefaults(t *testing.T) {
	t.Setenv(EnvPodIP, "10.1.2.3")
	cfg := ConsumerConfig{CoordinatorURLs: []string{"http://x"}, StreamPrefix: "orders", ConsumerGroup: "g", Redis: nilRedis(), MemberIndex: 1}
	require.NoError(t, cfg.setDefaults())
	require.Equal(t, "10.1.2.3-m1", cfg.MemberID)
	require.Equal(t, DefaultConcurrency, cfg.Concurrency)
	require.Equal(t, DefaultMaxDeliveries, cfg.MaxDeliveries)
	require.Empty(t, cfg.DeadLetterStream, "default: one dead-letter stream per shard")
	// Margin: 20% of the lease, at least 1s.
	require.Equal(t, int64(12_000), cfg.selfFenceAfter(15_000_000_000).Milliseconds())
	require.Equal(t, int64(2_000), cfg.selfFenceAfter(3_000_000_000).Milliseconds())
	require.Equal(t, int64(500), cfg.selfFenceAfter(1_000_000_000).Milliseconds(), "margin ≥ lease: half the lease")

	bad := cfg
	bad.StreamPrefix = "a{b}"
	require.Error(t, bad.setDefaults())
	bad = cfg
	bad.CoordinatorURLs = nil
	require.Error(t, bad.setDefaults())
	_, err := NewConsumer(cfg, nil)
	require.Error(t, err)
}

// nilRedis is a client that is never used.
func nilRedis() *redis.Client { return redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) }
