package membersdk

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/stretchr/testify/require"
)

// flakyAck fails the first fenced XACK (the ack script or the FencedAcker's
// transaction): before sending it (lost) or after Redis applied it (reply
// lost).
type flakyAck struct {
	applied bool
	fired   atomic.Bool
}

func (f *flakyAck) DialHook(next redis.DialHook) redis.DialHook { return next }
func (f *flakyAck) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if isAckTx(cmds) && f.fired.CompareAndSwap(false, true) {
			if f.applied {
				_ = next(ctx, cmds)
			}
			err := errors.New("connection reset by peer")
			for _, c := range cmds {
				c.SetErr(err)
			}
			return err
		}
		return next(ctx, cmds)
	}
}

// isAckTx reports the FencedAcker's MULTI/XACK/EXEC pipeline.
func isAckTx(cmds []redis.Cmder) bool {
	for _, c := range cmds {
		if strings.EqualFold(c.Name(), "xack") {
			return true
		}
	}
	return false
}
func (f *flakyAck) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if isAckScript(cmd) && f.fired.CompareAndSwap(false, true) {
			if f.applied {
				_ = next(ctx, cmd)
			}
			err := errors.New("connection reset by peer")
			cmd.SetErr(err)
			return err
		}
		return next(ctx, cmd)
	}
}

// isAckScript reports the fenced XACK (the ack script, EVALSHA or EVAL).
func isAckScript(cmd redis.Cmder) bool {
	args := cmd.Args()
	if len(args) < 2 || !(strings.EqualFold(cmd.Name(), "evalsha") || strings.EqualFold(cmd.Name(), "eval")) {
		return false
	}
	return args[1] == fence.AckScript.SHA || args[1] == fence.AckScript.Src
}

func TestFailedXackIsSettledWithoutRunningTheHandlerAgain(t *testing.T) {
	t.Parallel()
	for _, applied := range []bool{false, true} {
		name := "ack lost"
		if applied {
			name = "reply lost"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := setupRedis(t, 1)
			rc := redis.NewClient(base.Options())
			t.Cleanup(func() { _ = rc.Close() })
			flaky := &flakyAck{applied: applied}
			rc.AddHook(flaky)
			f := newFakeCoord(t, 1)
			f.setTarget("m0", 0)
			var ev events
			var h handled
			c, err := NewConsumer(testConfig(f, rc, "m0", &ev), func(ctx context.Context, m Message) error { h.add(m); return nil })
			require.NoError(t, err)
			stop, _ := runConsumer(t, c)
			id := xadd(t, base, 0, "k", "v")
			eventually(t, func() bool { return len(ev.find(EventAcked)) == 1 }, 5*time.Second, "acknowledgement settled")
			require.Equal(t, id, ev.find(EventAcked)[0].EntryID)
			require.Equal(t, int64(0), pendingCount(t, base, 0))
			// Asserts that nothing happens (no second run): no event marks it,
			// so give a wrong redelivery 200ms to show up.
			time.Sleep(200 * time.Millisecond)
			require.Equal(t, 1, h.count(), "the handler is not run again")
			require.True(t, flaky.fired.Load(), "the fenced XACK failed once")
			require.NoError(t, stop())
		})
	}
}
