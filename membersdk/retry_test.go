package membersdk

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRetryPacerGrowsWithJitterWithinBounds(t *testing.T) {
	const base, maxWait = 100 * time.Millisecond, time.Second
	p := newBackoff(base, maxWait)
	nominal := base
	for range 10 {
		d := p.next()
		require.GreaterOrEqual(t, d, nominal/2, "nominal %s", nominal)
		require.LessOrEqual(t, d, min(nominal*3/2+time.Nanosecond, maxWait), "nominal %s", nominal)
		nominal = min(nominal*2, maxWait)
	}
	p.reset()
	d := p.next()
	require.GreaterOrEqual(t, d, base/2)
	require.LessOrEqual(t, d, base*3/2+time.Nanosecond)
}

// Members that fail together must not retry together: the first waits of
// many pacers are spread out, not one value.
func TestRetryPacersAreNotInLockStep(t *testing.T) {
	seen := map[time.Duration]bool{}
	for range 50 {
		seen[newBackoff(time.Second, 5*time.Second).next()] = true
	}
	require.Greater(t, len(seen), 40, "first retry waits of 50 members")
}

func TestHeartbeatRetryIntervalNeverExceedsTheHeartbeatInterval(t *testing.T) {
	c := &Consumer{cfg: ConsumerConfig{RetryInterval: 300 * time.Millisecond}}
	c.ls.interval = time.Second
	for range 20 {
		d := c.retryInterval()
		require.GreaterOrEqual(t, d, 150*time.Millisecond)
		require.LessOrEqual(t, d, time.Second)
	}
	c.ls.hbRetry.reset()
	require.LessOrEqual(t, c.retryInterval(), 450*time.Millisecond+time.Nanosecond, "reset starts from RetryInterval again")
}
