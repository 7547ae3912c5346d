package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// txPipeline compares the two ways to run a read → transform → write one
// output → acknowledge pipeline on one pre-filled shard: at-least-once (the
// handler XADDs its output, then the consumer acknowledges through the
// fence; a redelivery writes the output again) and exactly-once (the output
// is a Tx write, committed with the acknowledgement in one fenced script
// per batch). Same data, same batch size, rounds in alternating order; the
// ratio is the median of the rounds' exactly-once / at-least-once ratios.
// Redis commands per entry are as Redis counts them (INFO commandstats):
// the commands a script runs count too.
func (e *env) txPipeline(rep *report, sz sizes, batch int64) {
	const prefix = "txpipe"
	key := protocol.StreamKey(prefix, 0)
	if n, _ := e.rc.XLen(context.Background(), key).Result(); n == 0 {
		e.fill(key, sz.consumeN)
	}
	transform := func(m membersdk.Message) map[string]any {
		return map[string]any{"from": m.ID, "p": strings.ToUpper(fmt.Sprint(m.Values["p"]))}
	}
	var alo, eo, bare, ratios, bareRatios, aloCmds, eoCmds []float64
	runALO := func(r int) {
		grp := fmt.Sprintf("alo-%d-%d", batch, r)
		out := "{" + key + "}:out-" + grp
		rate, cmds := e.consumeRoundOn(key, grp, sz.consumeN, func(grp string) time.Duration {
			return e.sdkRun(prefix, key, grp, batch, sz.consumeN, nil, func(ctx context.Context, m membersdk.Message) error {
				return e.rc.XAdd(ctx, &redis.XAddArgs{Stream: out, Values: transform(m)}).Err()
			})
		})
		e.checkOutput(out, sz.consumeN)
		alo, aloCmds = append(alo, rate), append(aloCmds, cmds)
	}
	runEO := func(r int) {
		grp := fmt.Sprintf("eo-%d-%d", batch, r)
		out := "{" + key + "}:out-" + grp
		rate, cmds := e.consumeRoundOn(key, grp, sz.consumeN, func(grp string) time.Duration {
			return e.sdkRun(prefix, key, grp, batch, sz.consumeN, func(c *membersdk.ConsumerConfig) {
				c.Transactions = membersdk.TxConfig{Enabled: true}
			}, func(_ context.Context, m membersdk.Message) error {
				return m.Tx.XAdd(out, transform(m))
			})
		})
		e.checkOutput(out, sz.consumeN)
		eo, eoCmds = append(eo, rate), append(eoCmds, cmds)
	}
	runBare := func(r int) { // no output at all: what the commit costs on top of reading and acknowledging
		grp := fmt.Sprintf("bare-%d-%d", batch, r)
		rate, _ := e.consumeRoundOn(key, grp, sz.consumeN, func(grp string) time.Duration {
			return e.sdkConsume(prefix, key, grp, batch, sz.consumeN)
		})
		bare = append(bare, rate)
	}
	rounds := max(3, sz.consumeRounds/2) | 1
	for r := range rounds {
		if r%2 == 0 {
			runALO(r)
			runEO(r)
			runBare(r)
		} else {
			runBare(r)
			runEO(r)
			runALO(r)
		}
		ratios = append(ratios, eo[r]/alo[r])
		bareRatios = append(bareRatios, eo[r]/bare[r])
	}
	rep.add(fmt.Sprintf("pipeline, batch %d: at-least-once, handler XADDs its output, fenced ack per batch (entries/s, rounds)", batch), rates(alo))
	rep.add(fmt.Sprintf("pipeline, batch %d: exactly-once, output as a Tx write committed with the ack (entries/s, rounds)", batch), rates(eo))
	rep.add(fmt.Sprintf("**pipeline, batch %d: exactly-once / at-least-once (median of the rounds' ratios)**", batch), fmt.Sprintf("**%.2f×** (rounds: %s)", median(ratios), ratioList(ratios)))
	rep.add(fmt.Sprintf("pipeline, batch %d: no output, fenced ack only (entries/s, rounds)", batch), rates(bare))
	rep.add(fmt.Sprintf("pipeline, batch %d: exactly-once / no output (what writing and committing the output costs)", batch), fmt.Sprintf("%.2f× (rounds: %s)", median(bareRatios), ratioList(bareRatios)))
	rep.add(fmt.Sprintf("pipeline, batch %d: Redis commands per entry as Redis counts them, at-least-once / exactly-once (script commands included)", batch), fmt.Sprintf("%.3f / %.3f", median(aloCmds), median(eoCmds)))
}

// checkOutput fails the run unless out holds exactly n entries, then
// deletes it.
func (e *env) checkOutput(out string, n int) {
	ctx := context.Background()
	got, err := e.rc.XLen(ctx, out).Result()
	if err != nil || got != int64(n) {
		e.b.Fatalf("%s: %d output entries (%v), want %d", out, got, err, n)
	}
	_ = e.rc.Del(ctx, out).Err()
}
