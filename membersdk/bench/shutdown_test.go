package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// shutdown measures how long Run takes to return after its context is
// cancelled while the shard's reader is blocked in XREADGROUP on an idle
// stream (default BlockTimeout, 1 s), including the leave heartbeats.
func (e *env) shutdown(rep *report, sz sizes) {
	const prefix = "shutdown"
	ctx := context.Background()
	_ = e.rc.XGroupCreateMkStream(ctx, protocol.StreamKey(prefix, 0), group, "$").Err()
	var took []time.Duration
	for range sz.shutdowns {
		started := make(chan struct{}, 1)
		cfg := e.consumerConfig(prefix, group, membersdk.DefaultBatchSize)
		cfg.OnEvent = func(ev membersdk.Event) {
			if ev.Type == membersdk.EventShardStarted {
				select {
				case started <- struct{}{}:
				default:
				}
			}
		}
		c, err := membersdk.NewConsumer(cfg, func(context.Context, membersdk.Message) error { return nil })
		if err != nil {
			e.b.Fatal(err)
		}
		before := e.blockedReads()
		stop := runConsumer(e.b, c)
		<-started
		for deadline := time.Now().Add(10 * time.Second); e.blockedReads() <= before; {
			if time.Now().After(deadline) {
				e.b.Fatal("the shard's reader did not block in XREADGROUP within 10s")
			}
			time.Sleep(time.Millisecond) // poll interval of the wait above
		}
		took = append(took, stop())
	}
	slices.Sort(took)
	rep.add(fmt.Sprintf("consumer shutdown, reader blocked (BlockTimeout %s): median / max of %d", membersdk.DefaultBlockTimeout, len(took)),
		ms(percentile(took, 0.5))+" / "+ms(took[len(took)-1]))
}

// blockedReads is how many clients of the bench's Redis are blocked in
// XREADGROUP right now (CLIENT LIST: cmd=xreadgroup, flag b).
func (e *env) blockedReads() int {
	list, err := e.rc.ClientList(context.Background()).Result()
	if err != nil {
		e.b.Fatalf("CLIENT LIST: %v", err)
	}
	n := 0
	for _, line := range strings.Split(list, "\n") {
		if strings.Contains(line, " cmd=xreadgroup") && blockedFlag(line) {
			n++
		}
	}
	return n
}

func blockedFlag(line string) bool {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "flags="); ok {
			return strings.Contains(v, "b")
		}
	}
	return false
}
