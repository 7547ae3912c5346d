package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/api/protocol"
	"github.com/redisstream/coordinator/membersdk"
)

// fencedAckBatch is the number of ids per acknowledgement call.
const fencedAckBatch = 100

// fencedAck compares acknowledging through the shard fence script
// (membersdk.FencedXAck, what the Consumer sends per batch) with a plain
// XACK, 100 ids per call, one call at a time on one connection, on the same
// stream: each round makes n entries pending in two groups, then acks one
// group plainly and the other fenced (the order alternates per round).
func (e *env) fencedAck(rep *report, sz sizes) {
	const prefix = "fencedack"
	ctx := context.Background()
	key := protocol.StreamKey(prefix, 0)
	n := sz.consumeN
	var plain, fenced, ratio []float64
	for round := range max(sz.rounds, 1) {
		_ = e.rc.Del(ctx, key).Err()
		pipe := e.rc.Pipeline()
		for i := range n {
			pipe.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{"i", i}})
			if i%1000 == 999 {
				if _, err := pipe.Exec(ctx); err != nil {
					e.b.Fatal(err)
				}
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			e.b.Fatal(err)
		}
		ids := e.pendIDs(key, "plain", n)
		fids := e.pendIDs(key, "fenced", n)
		fk := fenceKeyOf(key, "fenced")
		if err := e.rc.HSet(ctx, fk, "owner", "m", "token", 3).Err(); err != nil {
			e.b.Fatal(err)
		}
		runPlain := func() float64 {
			t0 := time.Now()
			for i := 0; i < len(ids); i += fencedAckBatch {
				if err := e.rc.XAck(ctx, key, "plain", ids[i:min(i+fencedAckBatch, len(ids))]...).Err(); err != nil {
					e.b.Fatal(err)
				}
			}
			return float64(len(ids)) / time.Since(t0).Seconds()
		}
		runFenced := func() float64 {
			t0 := time.Now()
			for i := 0; i < len(fids); i += fencedAckBatch {
				if err := membersdk.FencedXAck(ctx, e.rc, key, "fenced", "m", 3, fids[i:min(i+fencedAckBatch, len(fids))]...); err != nil {
					e.b.Fatal(err)
				}
			}
			return float64(len(fids)) / time.Since(t0).Seconds()
		}
		var p, f float64
		if round%2 == 0 {
			p, f = runPlain(), runFenced()
		} else {
			f, p = runFenced(), runPlain()
		}
		if left, _ := e.rc.XPending(ctx, key, "fenced").Result(); left != nil && left.Count != 0 {
			e.b.Fatalf("fenced acks left %d entries pending", left.Count)
		}
		plain, fenced, ratio = append(plain, p), append(fenced, f), append(ratio, f/p)
	}
	rep.add(fmt.Sprintf("acks/s, plain XACK, %d ids per call (rounds)", fencedAckBatch), rates(plain))
	rep.add(fmt.Sprintf("acks/s, fenced ack script, %d ids per call (rounds)", fencedAckBatch), rates(fenced))
	rep.add("fenced / plain ack throughput: median (rounds)", fmt.Sprintf("%.2f (%s)", median(ratio), ratioList(ratio)))
}

// pendIDs creates grp at the start of key and reads all n entries into its
// PEL, returning their ids.
func (e *env) pendIDs(key, grp string, n int) []string {
	ctx := context.Background()
	_ = e.rc.XGroupDestroy(ctx, key, grp).Err()
	if err := e.rc.XGroupCreate(ctx, key, grp, "0").Err(); err != nil {
		e.b.Fatal(err)
	}
	ids := make([]string, 0, n)
	for len(ids) < n {
		res, err := e.rc.XReadGroup(ctx, &redis.XReadGroupArgs{Group: grp, Consumer: "m", Streams: []string{key, ">"}, Count: 10_000, Block: -1}).Result()
		if err != nil {
			e.b.Fatal(err)
		}
		for _, m := range res[0].Messages {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// fenceKeyOf is the fence key (docs/PROTOCOL.md): "{stream}:fence:group"
// (group names here need no escaping).
func fenceKeyOf(streamKey, grp string) string { return protocol.FenceKey(streamKey, grp) }
