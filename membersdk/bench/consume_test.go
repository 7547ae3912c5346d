package bench

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

var payload = strings.Repeat("x", 64)

// fill appends n entries to key with a pipeline.
func (e *env) fill(key string, n int) {
	ctx := context.Background()
	for done := 0; done < n; {
		p := e.rc.Pipeline()
		for i := 0; i < 1000 && done < n; i++ {
			p.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{"p", payload}})
			done++
		}
		if _, err := p.Exec(ctx); err != nil {
			e.b.Fatalf("fill %s: %v", key, err)
		}
	}
}

// consume compares a raw XREADGROUP+XACK loop with the SDK consumer on one
// pre-filled shard, batch entries per read. Each round runs both, in
// alternating order (so load that drifts during a round hits both sides
// alike), each reading the whole stream through a new consumer group; the
// ratio is the median of the rounds' SDK/raw ratios.
func (e *env) consume(rep *report, sz sizes, batch int64) {
	const prefix = "consume"
	key := protocol.StreamKey(prefix, 0)
	if n, _ := e.rc.XLen(context.Background(), key).Result(); n == 0 {
		e.fill(key, sz.consumeN)
	}
	var raw, sdk, ratios, rawCmds, sdkCmds, rawCPU, sdkCPU []float64
	runRaw := func(r int) {
		rate, cmds := e.consumeRound(fmt.Sprintf("raw-%d-%d", batch, r), sz.consumeN, func(grp string) time.Duration {
			return e.rawConsume(key, grp, batch, sz.consumeN)
		})
		raw, rawCmds, rawCPU = append(raw, rate), append(rawCmds, cmds), append(rawCPU, float64(e.lastCPU))
	}
	runSDK := func(r int) {
		rate, cmds := e.consumeRound(fmt.Sprintf("sdk-%d-%d", batch, r), sz.consumeN, func(grp string) time.Duration {
			return e.sdkConsume(prefix, key, grp, batch, sz.consumeN)
		})
		sdk, sdkCmds, sdkCPU = append(sdk, rate), append(sdkCmds, cmds), append(sdkCPU, float64(e.lastCPU))
	}
	for r := range sz.consumeRounds {
		if r%2 == 0 {
			runRaw(r)
			runSDK(r)
		} else {
			runSDK(r)
			runRaw(r)
		}
		ratios = append(ratios, sdk[r]/raw[r])
	}
	rep.add(fmt.Sprintf("consume, batch %d: raw XREADGROUP+XACK loop (entries/s, rounds)", batch), rates(raw))
	rep.add(fmt.Sprintf("consume, batch %d: SDK consumer, no-op handler (entries/s, rounds)", batch), rates(sdk))
	rep.add(fmt.Sprintf("**consume, batch %d: SDK / raw (median of the rounds' ratios)**", batch), fmt.Sprintf("**%.2f×** (rounds: %s)", median(ratios), ratioList(ratios)))
	rep.add(fmt.Sprintf("consume, batch %d: Redis commands per entry, raw / SDK (SDK per batch: XREADGROUP, then MULTI XACK EXEC WATCH HGET in one round trip)", batch), fmt.Sprintf("%.3f / %.3f", median(rawCmds), median(sdkCmds)))
	rep.add(fmt.Sprintf("consume, batch %d: client CPU per entry (user+sys of the Go process), raw / SDK", batch),
		fmt.Sprintf("%s / %s (%.2f×)", time.Duration(median(rawCPU)), time.Duration(median(sdkCPU)), median(sdkCPU)/median(rawCPU)))
}

// consumeRound creates group grp at the start of the stream, runs read and
// returns entries per second (over the time read reports) and Redis commands
// per entry.
func (e *env) consumeRound(grp string, n int, read func(grp string) time.Duration) (float64, float64) {
	return e.consumeRoundOn(protocol.StreamKey("consume", 0), grp, n, read)
}

// consumeRoundOn is consumeRound on the stream key.
func (e *env) consumeRoundOn(key, grp string, n int, read func(grp string) time.Duration) (float64, float64) {
	ctx := context.Background()
	if err := e.rc.XGroupCreate(ctx, key, grp, "0").Err(); err != nil {
		e.b.Fatalf("XGROUP CREATE %s: %v", grp, err)
	}
	e.srv.ResetStats()
	cpu0 := cpuTime()
	elapsed := read(grp)
	e.lastCPU = (cpuTime() - cpu0) / time.Duration(n)
	var cmds int64
	for name, calls := range e.srv.CommandCalls() {
		if !harnessCommand(name) {
			cmds += calls
		}
	}
	_ = e.rc.XGroupDestroy(ctx, key, grp).Err()
	return float64(n) / elapsed.Seconds(), float64(cmds) / float64(n)
}

// harnessCommand: a command the benchmark itself sends (polling the group,
// writing the fence, reading stats), or the SDK's join (CLIENT ID, once).
// Everything else counts, the SDK's fenced acknowledgement (MULTI, XACK,
// EXEC, WATCH, HGET: one round trip) included.
func harnessCommand(name string) bool {
	for _, p := range []string{"xinfo", "xgroup", "info", "config", "client", "hello", "ping", "hset"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// rawConsume is what a user would write without the SDK: read a batch,
// acknowledge it with one XACK, repeat. It returns the time from the first
// read to the last acknowledgement.
func (e *env) rawConsume(key, grp string, batch int64, n int) time.Duration {
	ctx := context.Background()
	t0 := time.Now()
	for got := 0; got < n; {
		res, err := e.rc.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: grp, Consumer: "raw", Streams: []string{key, ">"}, Count: batch, Block: time.Second,
		}).Result()
		if err != nil {
			e.b.Fatalf("raw XREADGROUP: %v", err)
		}
		ids := make([]string, 0, batch)
		for _, s := range res {
			for _, m := range s.Messages {
				ids = append(ids, m.ID)
			}
		}
		if err := e.rc.XAck(ctx, key, grp, ids...).Err(); err != nil {
			e.b.Fatalf("raw XACK: %v", err)
		}
		got += len(ids)
	}
	return time.Since(t0)
}

// sdkConsume runs an SDK consumer with a no-op handler, acknowledging
// through the shard fence, until every entry was handled and acknowledged
// (the group's pending list is empty). It returns the time from the first
// handler call to then: the join (one heartbeat, CLIENT ID, XAUTOCLAIM of
// nothing, about 2 ms) is left out, as the raw loop has none.
func (e *env) sdkConsume(prefix, key, grp string, batch int64, n int) time.Duration {
	return e.sdkRun(prefix, key, grp, batch, n, nil, func(context.Context, membersdk.Message) error { return nil })
}

// sdkRun is sdkConsume with handler, on a consumer configured by mod (if
// set).
func (e *env) sdkRun(prefix, key, grp string, batch int64, n int, mod func(*membersdk.ConsumerConfig), handler membersdk.Handler) time.Duration {
	// The static coordinator writes no fence: write the one a fencing
	// coordinator would, so that the consumer acknowledges fenced.
	if err := e.rc.HSet(context.Background(), fenceKeyOf(key, grp), "owner", "bench-m0", "token", 1).Err(); err != nil {
		e.b.Fatal(err)
	}
	var handled atomic.Int64
	var t0 time.Time
	all := make(chan struct{})
	cfg := e.consumerConfig(prefix, grp, batch)
	if mod != nil {
		mod(&cfg)
	}
	c, err := membersdk.NewConsumer(cfg, func(ctx context.Context, m membersdk.Message) error {
		if err := handler(ctx, m); err != nil {
			return err
		}
		switch handled.Add(1) {
		case 1:
			t0 = time.Now()
		case int64(n):
			close(all)
		}
		return nil
	})
	if err != nil {
		e.b.Fatal(err)
	}
	stop := runConsumer(e.b, c)
	defer stop()
	ctx := context.Background()
	<-all
	for {
		groups, err := e.rc.XInfoGroups(ctx, key).Result()
		if err != nil {
			e.b.Fatalf("XINFO GROUPS: %v", err)
		}
		for _, g := range groups {
			if g.Name == grp && g.Pending == 0 {
				return time.Since(t0)
			}
		}
		time.Sleep(100 * time.Microsecond) // poll interval of the wait for pending == 0
	}
}
