package sdkexample_test

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// The example's -exactly-once pipeline: one process produces and consumes
// and is killed (-9) mid-way; a second one publishes more, takes the shards
// over, processes again what the first left unacknowledged, and at SIGTERM
// its count check finds one output per acknowledged entry on every shard.
func TestExampleExactlyOnceSurvivesAKill(t *testing.T) {
	const shards = 4
	rs := redistest.Start(t)
	env := map[string]string{"RSC_COORDINATION_HEARTBEAT_INTERVAL": "300ms", "RSC_COORDINATION_MEMBER_LEASE_TTL": "2s"}
	coord := harness.StartCoordinator(t, harness.Options{RedisAddr: rs.Addr(), Env: env})
	api := harness.NewClient(coord.URL())
	api.CreateStream(t, "orders", shards)
	api.MustDo(t, "POST", "/coord/v1/streams/orders/groups/workers", protocol.CreateGroupRequest{RequestedBy: "test"}, nil, 201)
	bin, err := harness.BinaryOf("github.com/redisstream/coordinator/membersdk/example")
	require.NoError(t, err)
	start := func(id string, extra ...string) (*exec.Cmd, *lockedBuffer, chan error) {
		var logs lockedBuffer
		cmd := exec.Command(bin, append([]string{"-coordinator", coord.URL(), "-redis", rs.Addr(), "-member-id", id, "-exactly-once"}, extra...)...)
		cmd.Stdout, cmd.Stderr = &logs, &logs
		require.NoError(t, cmd.Start())
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			if t.Failed() {
				t.Logf("%s log:\n%s", id, logs.String())
			}
		})
		return cmd, &logs, exited
	}
	ctx := context.Background()
	outputs := func() int64 {
		var n int64
		for i := range shards {
			n += rs.Client().XLen(ctx, fmt.Sprintf("{orders:%d}:out", i)).Val()
		}
		return n
	}
	first, _, firstExited := start("ex-a", "-produce-rate", "300", "-keys", "200")
	require.Eventually(t, func() bool { return outputs() >= 300 }, 30*time.Second, 20*time.Millisecond, "the first process commits outputs")
	require.NoError(t, first.Process.Kill())
	<-firstExited
	inputsOf := func() int64 {
		var n int64
		for i := range shards {
			n += rs.Client().XLen(ctx, fmt.Sprintf("orders:%d", i)).Val()
		}
		return n
	}
	before := inputsOf()

	// The second process publishes 200 more before it consumes, and takes
	// over what the first left pending once its lease expired.
	second, logs, exited := start("ex-b", "-produce", "200")
	var inputs int64
	require.Eventually(t, func() bool {
		inputs = inputsOf()
		return inputs == before+200 && outputs() == inputs && regexp.MustCompile(`joined the group`).MatchString(logs.String())
	}, 30*time.Second, 50*time.Millisecond, "the second process processes everything")
	require.NoError(t, second.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		require.NoError(t, err, "the count check passes: exit code 0")
	case <-time.After(30 * time.Second):
		t.Fatal("the example did not exit within 30s of SIGTERM")
	}
	out := logs.String()
	m := regexp.MustCompile(`exactly-once check \(\S+\): (\d+) acknowledged, (\d+) outputs in (\d+) shards — OK`).FindStringSubmatch(out)
	require.NotNil(t, m, "the final count check:\n%s", out)
	require.Equal(t, strconv.FormatInt(inputs, 10), m[1])
	require.Equal(t, m[1], m[2])
	require.Equal(t, strconv.Itoa(shards), m[3])
	require.NotContains(t, out, "MISMATCH")
}
