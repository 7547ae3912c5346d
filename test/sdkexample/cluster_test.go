package sdkexample_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startExample runs the example member binary with args, its output in the
// returned buffer (logged as name's if the test fails) and its exit on the
// channel; it is killed when the test ends.
func startExample(t *testing.T, name string, args ...string) (*exec.Cmd, *lockedBuffer, <-chan error) {
	t.Helper()
	bin, err := harness.BinaryOf("github.com/redisstream/coordinator/membersdk/example")
	require.NoError(t, err)
	var logs lockedBuffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("%s log:\n%s", name, logs.String())
		}
	})
	return cmd, &logs, exited
}

// stopExample sends SIGTERM and requires a clean exit (msg) within 30 s.
func stopExample(t *testing.T, cmd *exec.Cmd, exited <-chan error, msg string) {
	t.Helper()
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		require.NoError(t, err, msg)
	case <-time.After(30 * time.Second):
		t.Fatal("the example did not exit within 30s of SIGTERM")
	}
}

// The example, given the three masters of a real Redis Cluster, produces at
// a rate over many keys and consumes every shard, whichever master holds
// it: no MOVED, every published entry lands in Redis.
func TestExampleOnRedisCluster(t *testing.T) {
	const shards = 4
	rc := redistest.StartCluster(t, 3)
	coord := harness.StartCoordinator(t, harness.Options{RedisAddr: strings.Join(rc.Addrs(), ",")})
	api := harness.NewClient(coord.URL())
	api.CreateStream(t, "orders", shards)
	api.MustDo(t, "POST", "/coord/v1/streams/orders/groups/workers", protocol.CreateGroupRequest{RequestedBy: "test"}, nil, 201)

	cc := rc.Client()
	ctx := context.Background()
	owners := map[string]bool{}
	for i := range shards {
		node, err := cc.MasterForKey(ctx, fmt.Sprintf("orders:%d", i))
		require.NoError(t, err)
		owners[node.Options().Addr] = true
	}
	require.Greater(t, len(owners), 1, "the shards are spread over several masters")

	cmd, logs, exited := startExample(t, "example", "-coordinator", coord.URL(), "-redis", rc.Addrs()[0], "-redis", strings.Join(rc.Addrs()[1:], ","),
		"-member-id", "example-1", "-produce-rate", "200", "-keys", "500")

	handled := regexp.MustCompile(`msg=handled shard=(\d+) id=(\S+)`)
	require.Eventually(t, func() bool {
		seen := map[string]bool{}
		for _, m := range handled.FindAllStringSubmatch(logs.String(), -1) {
			seen[m[1]] = true
		}
		return len(seen) == shards && len(handled.FindAllString(logs.String(), -1)) >= 300
	}, 60*time.Second, 50*time.Millisecond, "the example consumes every shard")

	stopExample(t, cmd, exited, "the example exits cleanly on SIGTERM")
	out := logs.String()
	require.NotContains(t, out, "MOVED")
	require.Contains(t, out, "memberId=example-1")

	m := regexp.MustCompile(`msg="producer stopped" entries=(\d+) failed=(\d+)`).FindStringSubmatch(out)
	require.NotNil(t, m, "the producer reports its total")
	produced, _ := strconv.Atoi(m[1])
	require.Equal(t, "0", m[2], "no publish failed")
	var stored int64
	for i := range shards {
		n, err := cc.XLen(ctx, fmt.Sprintf("orders:%d", i)).Result()
		require.NoError(t, err)
		require.Positive(t, n, "shard %d got entries (keys are spread)", i)
		stored += n
	}
	require.EqualValues(t, produced, stored, "every published entry is in Redis")
	require.GreaterOrEqual(t, produced, 300)
}
