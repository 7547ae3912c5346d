package membersdk

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHeartbeatRetryIntervalNeverExceedsTheHeartbeatInterval(t *testing.T) {
	c := &Consumer{cfg: ConsumerConfig{RetryInterval: 300 * time.Millisecond}}
	c.ls.interval = time.Second
	for range 20 {
		d := c.retryInterval()
		require.GreaterOrEqual(t, d, 150*time.Millisecond)
		require.LessOrEqual(t, d, time.Second)
	}
	c.ls.hbRetry.Reset()
	require.LessOrEqual(t, c.retryInterval(), 450*time.Millisecond+time.Nanosecond, "reset starts from RetryInterval again")
}
