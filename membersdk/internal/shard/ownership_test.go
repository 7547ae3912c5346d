package shard

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
	g := &Gate{Now: func() time.Time { return now }}
	o := NewOwnership(g)
	require.True(t, o.Valid(), "no successful heartbeat yet: no deadline")

	g.Extend(now.Add(time.Second))
	require.True(t, o.Valid())
	now = now.Add(time.Second)
	ran, err := o.WithOwnership(func() error { return nil })
	require.NoError(t, err)
	require.False(t, ran, "past the self-fence deadline nothing may be acknowledged")

	g.Extend(now.Add(time.Second)) // a later successful heartbeat
	require.True(t, o.Valid())
	g.Fenced.Store(true)
	require.False(t, o.Valid())
	o.Lose()
	g.Fenced.Store(false)
	require.False(t, o.Valid(), "a lost token never comes back")
}
