package membersdk

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
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
	id := DefaultMemberID(3)
	require.True(t, strings.HasPrefix(id, sanitizeMemberID(host)+"-"+strconv.Itoa(os.Getpid())+"."), "host name and pid stay readable: %s", id)
	require.Regexp(t, `\.[0-9a-f]{4}-m3$`, id, "a random per-process part, then the index")
	require.Equal(t, strings.TrimSuffix(id, "-m3")+"-m0", DefaultMemberID(0), "one per-process part for every logical member")
	require.NoError(t, protocol.ValidateMemberID(id))
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

// TestDefaultMemberIDUniquePerProcess: two processes on one host without POD_IP get two ids
// (the test binary runs itself twice as the second and third process).
func TestDefaultMemberIDUniquePerProcess(t *testing.T) {
	if os.Getenv("MEMBERSDK_PRINT_ID") == "1" {
		os.Stdout.WriteString(DefaultMemberID(0))
		os.Exit(0)
	}
	run := func() string {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestDefaultMemberIDUniquePerProcess$")
		cmd.Env = append(os.Environ(), "MEMBERSDK_PRINT_ID=1", EnvPodIP+"=")
		out, err := cmd.Output()
		require.NoError(t, err)
		return string(out)
	}
	a, b := run(), run()
	require.NotEmpty(t, a)
	require.NotEqual(t, a, b, "two processes on one host, no POD_IP")
	require.True(t, strings.HasSuffix(a, "-m0"), a)
}
