package bench

import (
	"context"
	"fmt"
	"slices"
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
		stop := runConsumer(e.b, c)
		<-started
		time.Sleep(200 * time.Millisecond) // the reader is now blocked in XREADGROUP
		took = append(took, stop())
	}
	slices.Sort(took)
	rep.add(fmt.Sprintf("consumer shutdown, reader blocked (BlockTimeout %s): median / max of %d", membersdk.DefaultBlockTimeout, len(took)),
		ms(percentile(took, 0.5))+" / "+ms(took[len(took)-1]))
}
