package retry

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRetryPacerGrowsWithJitterWithinBounds(t *testing.T) {
	const base, maxWait = 100 * time.Millisecond, time.Second
	p := NewBackoff(base, maxWait)
	nominal := base
	for range 10 {
		d := p.Next()
		require.GreaterOrEqual(t, d, nominal/2, "nominal %s", nominal)
		require.LessOrEqual(t, d, min(nominal*3/2+time.Nanosecond, maxWait), "nominal %s", nominal)
		nominal = min(nominal*2, maxWait)
	}
	p.Reset()
	d := p.Next()
	require.GreaterOrEqual(t, d, base/2)
	require.LessOrEqual(t, d, base*3/2+time.Nanosecond)
}

// Members that fail together must not retry together: the first waits of
// many pacers are spread out, not one value.
func TestRetryPacersAreNotInLockStep(t *testing.T) {
	seen := map[time.Duration]bool{}
	for range 50 {
		seen[NewBackoff(time.Second, 5*time.Second).Next()] = true
	}
	require.Greater(t, len(seen), 40, "first retry waits of 50 members")
}
