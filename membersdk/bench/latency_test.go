package bench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// latency publishes at a fixed rate and measures publish → handler latency:
// raw XADD + a raw XREADGROUP/XACK loop, then SDK Producer + SDK consumer.
func (e *env) latency(rep *report, sz sizes) {
	const prefix = "latency"
	key := protocol.StreamKey(prefix, 0)
	ctx := context.Background()
	_ = e.rc.XGroupCreateMkStream(ctx, key, "init", "$").Err()

	var rawLat, sdkLat [][]time.Duration
	for r := range sz.rounds {
		rawLat = append(rawLat, e.rawLatency(key, fmt.Sprintf("lraw-%d", r), sz))
		sdkLat = append(sdkLat, e.sdkLatency(prefix, fmt.Sprintf("lsdk-%d", r), sz))
	}
	rp50, rp99 := latencyMedians(rawLat)
	sp50, sp99 := latencyMedians(sdkLat)
	rep.add(fmt.Sprintf("latency at %d entries/s, raw XADD → raw XREADGROUP loop: p50 / p99", sz.rate), ms(rp50)+" / "+ms(rp99))
	rep.add(fmt.Sprintf("latency at %d entries/s, SDK Publish → SDK handler: p50 / p99", sz.rate), ms(sp50)+" / "+ms(sp99))
	rep.add("**latency SDK / raw: p50, p99**", fmt.Sprintf("**%.2f×, %.2f×**", float64(sp50)/float64(rp50), float64(sp99)/float64(rp99)))
}

// latencyMedians is the median over rounds of each round's p50 and p99.
func latencyMedians(rounds [][]time.Duration) (time.Duration, time.Duration) {
	var p50, p99 []float64
	for _, l := range rounds {
		slices.Sort(l)
		p50 = append(p50, float64(percentile(l, 0.5)))
		p99 = append(p99, float64(percentile(l, 0.99)))
	}
	return time.Duration(median(p50)), time.Duration(median(p99))
}

// pace calls send(i) for i in [0, n) at rate per second.
func pace(n, rate int, send func(i int)) {
	period := time.Second / time.Duration(rate)
	t0 := time.Now()
	for i := range n {
		if d := time.Until(t0.Add(time.Duration(i) * period)); d > 0 {
			time.Sleep(d) // the send rate, not a wait
		}
		send(i)
	}
}

// collector records latencies from the "t" field (publish time, UnixNano).
type collector struct {
	mu   sync.Mutex
	lat  []time.Duration
	done chan struct{}
	want int
}

func newCollector(want int) *collector { return &collector{done: make(chan struct{}), want: want} }

func (c *collector) record(values map[string]any) {
	s, _ := values["t"].(string)
	ns, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return
	}
	lat := time.Since(time.Unix(0, ns))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lat = append(c.lat, lat)
	if len(c.lat) == c.want {
		close(c.done)
	}
}

func (c *collector) wait() []time.Duration {
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.lat)
}

func (e *env) rawLatency(key, grp string, sz sizes) []time.Duration {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := e.rc.XGroupCreate(ctx, key, grp, "$").Err(); err != nil {
		e.b.Fatal(err)
	}
	col := newCollector(sz.latencyN)
	go func() {
		for ctx.Err() == nil {
			res, err := e.rc.XReadGroup(ctx, &redis.XReadGroupArgs{
				Group: grp, Consumer: "raw", Streams: []string{key, ">"}, Count: membersdk.DefaultBatchSize, Block: 100 * time.Millisecond,
			}).Result()
			if err != nil {
				continue
			}
			var ids []string
			for _, s := range res {
				for _, m := range s.Messages {
					col.record(m.Values)
					ids = append(ids, m.ID)
				}
			}
			_ = e.rc.XAck(ctx, key, grp, ids...).Err()
		}
	}()
	pace(sz.latencyN, sz.rate, func(int) {
		_ = e.rc.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{"t", strconv.FormatInt(time.Now().UnixNano(), 10), "p", payload}}).Err()
	})
	return col.wait()
}

func (e *env) sdkLatency(prefix, grp string, sz sizes) []time.Duration {
	ctx := context.Background()
	if err := e.rc.XGroupCreate(ctx, protocol.StreamKey(prefix, 0), grp, "$").Err(); err != nil {
		e.b.Fatal(err)
	}
	col := newCollector(sz.latencyN)
	started := make(chan struct{})
	var once sync.Once
	cfg := e.consumerConfig(prefix, grp, membersdk.DefaultBatchSize)
	cfg.OnEvent = func(ev membersdk.Event) {
		if ev.Type == membersdk.EventShardStarted {
			once.Do(func() { close(started) })
		}
	}
	c, err := membersdk.NewConsumer(cfg, func(_ context.Context, m membersdk.Message) error {
		col.record(m.Values)
		return nil
	})
	if err != nil {
		e.b.Fatal(err)
	}
	stop := runConsumer(e.b, c)
	defer stop()
	<-started
	p, err := membersdk.NewProducer(membersdk.ProducerConfig{
		CoordinatorURLs: []string{e.coord.url()}, StreamPrefix: prefix, ConsumerGroup: grp, Redis: e.rc,
	})
	if err != nil {
		e.b.Fatal(err)
	}
	pace(sz.latencyN, sz.rate, func(i int) {
		_, _ = p.Publish(ctx, "k"+strconv.Itoa(i), map[string]any{"t": strconv.FormatInt(time.Now().UnixNano(), 10), "p": payload})
	})
	return col.wait()
}
