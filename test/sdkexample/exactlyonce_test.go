package sdkexample_test

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
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
	start := func(id string, extra ...string) (*exec.Cmd, *lockedBuffer, <-chan error) {
		return startExample(t, id, append([]string{"-coordinator", coord.URL(), "-redis", rs.Addr(), "-member-id", id, "-exactly-once"}, extra...)...)
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
	stopExample(t, second, exited, "the count check passes: exit code 0")
	out := logs.String()
	m := regexp.MustCompile(`exactly-once check \(\S+\): (\d+) acknowledged, (\d+) outputs in (\d+) shards — OK`).FindStringSubmatch(out)
	require.NotNil(t, m, "the final count check:\n%s", out)
	require.Equal(t, strconv.FormatInt(inputs, 10), m[1])
	require.Equal(t, m[1], m[2])
	require.Equal(t, strconv.Itoa(shards), m[3])
	require.NotContains(t, out, "MISMATCH")
}
