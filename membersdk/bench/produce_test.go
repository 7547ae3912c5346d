package bench

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// produce compares raw XADD with Producer.Publish on an 8-shard stream, and
// Publish of an idempotent producer (ProducerID: the dedup script) with
// the plain one, from one goroutine and from 8, rounds interleaved. Both
// raw and SDK route the key with protocol.Route (the raw side builds the
// shard key itself). Redis commands per entry are as Redis counts them
// (the commands the dedup script runs included).
func (e *env) produce(rep *report, sz sizes) {
	const prefix, shards = "produce", 8
	ctx := context.Background()
	for i := range shards {
		_ = e.rc.XGroupCreateMkStream(ctx, protocol.StreamKey(prefix, i), group, "$").Err()
	}
	p, err := membersdk.NewProducer(membersdk.ProducerConfig{
		CoordinatorURLs: []string{e.coord.url()}, StreamPrefix: prefix, ConsumerGroup: group, Redis: e.rc,
	})
	if err != nil {
		e.b.Fatal(err)
	}
	if _, err := p.Routing(ctx); err != nil {
		e.b.Fatal(err)
	}
	ip, err := membersdk.NewProducer(membersdk.ProducerConfig{
		CoordinatorURLs: []string{e.coord.url()}, StreamPrefix: prefix, ConsumerGroup: group, Redis: e.rc, ProducerID: "bench",
	})
	if err != nil {
		e.b.Fatal(err)
	}
	if _, err := ip.Routing(ctx); err != nil {
		e.b.Fatal(err)
	}
	values := map[string]any{"p": payload}
	raw := func(i int) error {
		key := protocol.StreamKey(prefix, int(protocol.Route("key-"+strconv.Itoa(i), shards)))
		return e.rc.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: values}).Err()
	}
	sdk := func(i int) error {
		_, err := p.Publish(ctx, "key-"+strconv.Itoa(i), values)
		return err
	}
	idem := func(i int) error {
		_, err := ip.Publish(ctx, "key-"+strconv.Itoa(i), values)
		return err
	}
	counted := func(round func() float64) (float64, float64) {
		e.srv.ResetStats()
		rate := round()
		var cmds int64
		for name, calls := range e.srv.CommandCalls() {
			if !harnessCommand(name) || name == "hset" { // the dedup script's HSET counts here
				cmds += calls
			}
		}
		return rate, float64(cmds) / float64(sz.produceN)
	}
	for _, workers := range []int{1, 8} {
		var rr, sr, ir, ratios, idemRatios, sdkCmds, idemCmds []float64
		for r := range sz.rounds {
			runSDK := func() {
				rate, cmds := counted(func() float64 { return e.produceRound(sz.produceN, workers, sdk) })
				sr, sdkCmds = append(sr, rate), append(sdkCmds, cmds)
			}
			runIdem := func() {
				rate, cmds := counted(func() float64 { return e.produceRound(sz.produceN, workers, idem) })
				ir, idemCmds = append(ir, rate), append(idemCmds, cmds)
			}
			if r%2 == 0 { // alternate the order, as in consume
				rr = append(rr, e.produceRound(sz.produceN, workers, raw))
				runSDK()
				runIdem()
			} else {
				runIdem()
				runSDK()
				rr = append(rr, e.produceRound(sz.produceN, workers, raw))
			}
			ratios = append(ratios, sr[r]/rr[r])
			idemRatios = append(idemRatios, ir[r]/sr[r])
		}
		rep.add(fmt.Sprintf("produce, %d goroutine(s): raw XADD (entries/s, rounds)", workers), rates(rr))
		rep.add(fmt.Sprintf("produce, %d goroutine(s): SDK Publish (entries/s, rounds)", workers), rates(sr))
		rep.add(fmt.Sprintf("**produce, %d goroutine(s): SDK / raw (median of the rounds' ratios)**", workers), fmt.Sprintf("**%.2f×** (rounds: %s)", median(ratios), ratioList(ratios)))
		rep.add(fmt.Sprintf("produce, %d goroutine(s): idempotent SDK Publish, dedup script (entries/s, rounds)", workers), rates(ir))
		rep.add(fmt.Sprintf("**produce, %d goroutine(s): idempotent / plain SDK Publish (median of the rounds' ratios)**", workers), fmt.Sprintf("**%.2f×** (rounds: %s)", median(idemRatios), ratioList(idemRatios)))
		rep.add(fmt.Sprintf("produce, %d goroutine(s): Redis commands per entry as Redis counts them, plain / idempotent", workers), fmt.Sprintf("%.3f / %.3f", median(sdkCmds), median(idemCmds)))
	}
	for i := range shards {
		_ = e.rc.Del(ctx, protocol.StreamKey(prefix, i)).Err()
	}
}

func (e *env) produceRound(n, workers int, send func(i int) error) float64 {
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if err := send(i); err != nil {
					e.b.Errorf("publish: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return float64(n) / time.Since(t0).Seconds()
}
