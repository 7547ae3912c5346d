package bench

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// consumeRace runs the raw loop and the SDK consumer side by side: at the
// same time, each on a pre-filled stream of its own (same size, same batch,
// same Redis), and counts the entries each handles in the same window
// (sz.raceWindow, from when both have handled their first entry). Load
// from other work on the machine then hits both at the same moments, which
// sequential rounds cannot guarantee on a busy box; the price is that the
// two share Redis and the cores, so it compares their efficiency under
// contention rather than each one alone. The ratio is the median over
// sz.raceRounds rounds of SDK entries / raw entries.
func (e *env) consumeRace(rep *report, sz sizes, batch int64) {
	const prefix = "race"
	ctx := context.Background()
	sdkKey, rawKey := protocol.StreamKey(prefix, 0), "raceraw:0"
	for _, k := range []string{sdkKey, rawKey} {
		if n, _ := e.rc.XLen(ctx, k).Result(); n == 0 {
			e.fill(k, sz.raceN)
		}
	}
	var ratios, rawRates, sdkRates []float64
	for r := range sz.raceRounds {
		grp := fmt.Sprintf("race-%d-%d", batch, r)
		for _, k := range []string{sdkKey, rawKey} {
			if err := e.rc.XGroupCreate(ctx, k, grp, "0").Err(); err != nil {
				e.b.Fatal(err)
			}
		}
		if err := e.rc.HSet(ctx, fenceKeyOf(sdkKey, grp), "owner", "bench-m0", "token", 1).Err(); err != nil {
			e.b.Fatal(err)
		}
		var rawN, sdkN atomic.Int64
		c, err := membersdk.NewConsumer(e.consumerConfig(prefix, grp, batch), func(context.Context, membersdk.Message) error {
			sdkN.Add(1)
			return nil
		})
		if err != nil {
			e.b.Fatal(err)
		}
		rctx, cancel := context.WithCancel(ctx)
		rawDone := make(chan struct{})
		go func() {
			defer close(rawDone)
			e.rawLoop(rctx, rawKey, grp, batch, &rawN)
		}()
		stop := runConsumer(e.b, c)
		for rawN.Load() == 0 || sdkN.Load() == 0 {
			time.Sleep(100 * time.Microsecond) // poll interval of the wait for both loops to run
		}
		r0, s0, t0 := rawN.Load(), sdkN.Load(), time.Now()
		time.Sleep(sz.raceWindow) // the measurement window, not a wait for a result
		r1, s1, el := rawN.Load(), sdkN.Load(), time.Since(t0)
		cancel()
		<-rawDone
		stop()
		if left := int64(sz.raceN) - r1; left < int64(batch) {
			e.b.Fatalf("the raw loop ran out of entries (%d left): fill more", left)
		}
		if left := int64(sz.raceN) - s1; left < int64(batch) {
			e.b.Fatalf("the SDK ran out of entries (%d left): fill more", left)
		}
		rawRates = append(rawRates, float64(r1-r0)/el.Seconds())
		sdkRates = append(sdkRates, float64(s1-s0)/el.Seconds())
		ratios = append(ratios, float64(s1-s0)/float64(r1-r0))
		for _, k := range []string{sdkKey, rawKey} {
			_ = e.rc.XGroupDestroy(ctx, k, grp).Err()
		}
	}
	rep.add(fmt.Sprintf("consume side by side, batch %d: raw loop / SDK at the same time (entries/s, median of %d windows of %s)", batch, sz.raceRounds, sz.raceWindow),
		fmt.Sprintf("%.1fk / %.1fk", median(rawRates)/1000, median(sdkRates)/1000))
	rep.add(fmt.Sprintf("**consume side by side, batch %d: SDK / raw (median of the windows' ratios)**", batch), fmt.Sprintf("**%.2f×** (windows: %s)", median(ratios), ratioList(ratios)))
}

// rawLoop is rawConsume until ctx is cancelled, counting acknowledged
// entries in n.
func (e *env) rawLoop(ctx context.Context, key, grp string, batch int64, n *atomic.Int64) {
	ids := make([]string, 0, batch)
	for ctx.Err() == nil {
		res, err := e.rc.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: grp, Consumer: "raw", Streams: []string{key, ">"}, Count: batch, Block: time.Second,
		}).Result()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, redis.Nil) {
				continue
			}
			e.b.Errorf("raw XREADGROUP: %v", err)
			return
		}
		ids = ids[:0]
		for _, s := range res {
			for _, m := range s.Messages {
				ids = append(ids, m.ID)
			}
		}
		if err := e.rc.XAck(ctx, key, grp, ids...).Err(); err != nil {
			if ctx.Err() == nil {
				e.b.Errorf("raw XACK: %v", err)
			}
			return
		}
		n.Add(int64(len(ids)))
	}
}
