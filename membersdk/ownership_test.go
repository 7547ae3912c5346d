package membersdk

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// After a pause (SIGSTOP) a handler can reach its XACK before the heartbeat
// loop notices that the self-fence deadline passed: the gate itself must be
// closed by then.
func TestFenceGateClosesAtTheDeadlineWithoutTheLoop(t *testing.T) {
	now := time.Unix(100, 0)
	g := &fenceGate{now: func() time.Time { return now }}
	o := newOwnership(g)
	require.True(t, o.valid(), "no successful heartbeat yet: no deadline")

	g.extend(now.Add(time.Second))
	require.True(t, o.valid())
	now = now.Add(time.Second)
	ran, err := o.withOwnership(func() error { return nil })
	require.NoError(t, err)
	require.False(t, ran, "past the self-fence deadline nothing may be acknowledged")

	g.extend(now.Add(time.Second)) // a later successful heartbeat
	require.True(t, o.valid())
	g.fenced.Store(true)
	require.False(t, o.valid())
	o.lose()
	g.fenced.Store(false)
	require.False(t, o.valid(), "a lost token never comes back")
}
