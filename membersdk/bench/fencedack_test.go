package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// fencedAckBatch is the number of ids per acknowledgement call.
const fencedAckBatch = 100

// fencedAck compares a plain XACK with the two fenced acknowledgements of
// the SDK, 100 ids per call, one call at a time, all through the same
// client (its pool) on the same stream:
//
//   - the FencedAcker transaction (WATCH/MULTI/XACK/EXEC on a connection of
//     its own): what a Consumer sends for its batches;
//   - the fence script (membersdk.NewFencedScriptAcker, EVALSHA): what it sends through
//     the pool (several lanes per shard, Redis Cluster) and what other
//     clients can use.
//
// Every group holds the same entries pending. Calls are interleaved: batch
// i is acknowledged plainly, by the transaction and by the script, in an
// order that rotates with i, so that load drifting on the machine hits all
// three alike; each call is timed on its own. A round is sz.ackRound ids;
// its throughput is ids per call / the round's median call time (robust to
// a call that happened to be descheduled on a busy machine), its ratio is
// plain median call time / fenced median call time, and the figure is the
// median of the rounds' ratios.
func (e *env) fencedAck(rep *report, sz sizes) {
	const prefix = "fencedack"
	ctx := context.Background()
	key := protocol.StreamKey(prefix, 0)
	n := sz.ackRounds * sz.ackRound
	_ = e.rc.Del(ctx, key).Err()
	e.fill(key, n)
	groups := []string{"plain", "tx", "script"}
	ids := map[string][]string{}
	for _, g := range groups {
		ids[g] = e.pendIDs(key, g, n)
		if err := e.rc.HSet(ctx, fenceKeyOf(key, g), "owner", "m", "token", 3).Err(); err != nil {
			e.b.Fatal(err)
		}
	}
	conn := e.rc.Conn()
	defer conn.Close()
	acker := membersdk.NewFencedAcker(conn, key, "tx", 3)
	defer func() { _ = acker.Close(ctx) }()
	script := membersdk.NewFencedScriptAcker(e.rc, key, "script", "m", 3)
	send := map[string]func(batch []string) error{
		"plain": func(b []string) error { return e.rc.XAck(ctx, key, "plain", b...).Err() },
		"tx": func(b []string) error {
			_, err := acker.Ack(ctx, b...)
			return err
		},
		"script": func(b []string) error {
			_, err := script.Ack(ctx, b...)
			return err
		},
	}
	// Warm up: load the script, open and arm the connection.
	for _, g := range groups {
		if err := send[g](ids[g][:1]); err != nil {
			e.b.Fatalf("%s ack: %v", g, err)
		}
	}
	rate := map[string][]float64{}
	var txRatio, scriptRatio []float64
	call := 0
	for r := range sz.ackRounds {
		took := map[string][]float64{} // seconds per call
		lo, hi := max(r*sz.ackRound, 1), (r+1)*sz.ackRound
		for i := lo; i+fencedAckBatch <= hi; i += fencedAckBatch {
			for k := range groups {
				g := groups[(call+k)%len(groups)]
				b := ids[g][i : i+fencedAckBatch]
				t0 := time.Now()
				if err := send[g](b); err != nil {
					e.b.Fatalf("%s ack: %v", g, err)
				}
				took[g] = append(took[g], time.Since(t0).Seconds())
			}
			call++
		}
		for _, g := range groups {
			rate[g] = append(rate[g], fencedAckBatch/median(took[g]))
		}
		txRatio = append(txRatio, median(took["plain"])/median(took["tx"]))
		scriptRatio = append(scriptRatio, median(took["plain"])/median(took["script"]))
	}
	// Every id once more (untimed; those already acknowledged count 0), for
	// the few the rounds' full batches left out: nothing may stay pending.
	for _, g := range groups {
		for i := 1; i < n; i += fencedAckBatch {
			if err := send[g](ids[g][i:min(i+fencedAckBatch, n)]); err != nil {
				e.b.Fatalf("%s ack: %v", g, err)
			}
		}
	}
	for _, g := range groups {
		if left, _ := e.rc.XPending(ctx, key, g).Result(); left != nil && left.Count != 0 {
			e.b.Fatalf("%s acks left %d entries pending", g, left.Count)
		}
	}
	_ = e.rc.Del(ctx, key).Err()
	rep.add(fmt.Sprintf("acks/s, plain XACK, %d ids per call (%d ids / median call time; median of %d rounds of %d ids)", fencedAckBatch, fencedAckBatch, sz.ackRounds, sz.ackRound), fmt.Sprintf("%.0fk", median(rate["plain"])/1000))
	rep.add(fmt.Sprintf("acks/s, fenced transaction (FencedAcker, the Consumer's path), %d ids per call", fencedAckBatch), fmt.Sprintf("%.0fk", median(rate["tx"])/1000))
	rep.add(fmt.Sprintf("acks/s, fence script (NewFencedScriptAcker, EVALSHA), %d ids per call", fencedAckBatch), fmt.Sprintf("%.0fk", median(rate["script"])/1000))
	rep.add("**fenced transaction / plain XACK: median of the rounds' ratios**", fmt.Sprintf("**%.2f×** (rounds: %s)", median(txRatio), ratioList(txRatio)))
	rep.add("**fence script / plain XACK: median of the rounds' ratios**", fmt.Sprintf("**%.2f×** (rounds: %s)", median(scriptRatio), ratioList(scriptRatio)))
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
