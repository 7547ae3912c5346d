package router

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
)

// A pooled call's timer, left set at an earlier call's deadline, fires early:
// the wait goes on until its own deadline, never ends before it.
func TestLocalCallWaitsOutItsOwnDeadline(t *testing.T) {
	c := localCalls.New().(*localCall)
	now := time.Now()
	c.arm(now, now.Add(5*time.Millisecond)) // an earlier call's deadline
	deadline := now.Add(40 * time.Millisecond)
	c.arm(now, deadline) // kept: it fires no later than needed
	require.True(t, c.at.Before(deadline))
	_, ok := c.wait(deadline)
	require.False(t, ok)
	require.False(t, time.Now().Before(deadline), "the wait ended before its deadline")
}

// A timer set to fire after the deadline is reset to it, and an answer ends
// the wait at once (the timer stays set for the next call).
func TestLocalCallArmsForAnEarlierDeadline(t *testing.T) {
	c := localCalls.New().(*localCall)
	now := time.Now()
	c.arm(now, now.Add(time.Hour))
	deadline := now.Add(10 * time.Millisecond)
	c.arm(now, deadline)
	require.Equal(t, deadline, c.at)
	_, ok := c.wait(deadline)
	require.False(t, ok, "the reset timer ends the wait")

	c.arm(time.Now(), time.Now().Add(time.Hour))
	want := &groupmsg.HeartbeatReply{}
	c.reply <- want
	got, ok := c.wait(time.Now().Add(time.Hour))
	require.True(t, ok)
	require.Same(t, want, got)
	require.True(t, c.armed)
}
