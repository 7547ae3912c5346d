package recorder

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// Settle counts as processed the entries that were handled but whose
// acknowledgement nobody saw: a member's XACK can reach Redis while the reply
// is lost (Redis killed at that moment), and if that member never owns the
// shard again it never reports the acknowledgement. An entry handled at least
// once and no longer pending in the consumer group was acknowledged. Call it
// once the run is over and members have stopped; it returns how many entries
// it settled. Settled entries take no part in the overlap check (their ack
// time is unknown).
func (r *Recorder) Settle(ctx context.Context, rdb redis.UniversalClient, streamPrefix, group string) (int, error) {
	acked := r.AckedSeqs()
	type entry struct {
		shard int
		id    string
		seq   int64
	}
	var todo []entry
	seen := map[int64]bool{}
	for _, l := range r.Lines() {
		if l.Kind == "handled" && !acked[l.Seq] && !seen[l.Seq] {
			seen[l.Seq] = true
			todo = append(todo, entry{l.Shard, l.EntryID, l.Seq})
		}
	}
	settled := 0
	for _, e := range todo {
		key := streamPrefix + ":" + strconv.Itoa(e.shard)
		pending, err := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: key, Group: group, Start: e.id, End: e.id, Count: 1}).Result()
		if err != nil {
			return settled, fmt.Errorf("XPENDING %s %s: %w", key, e.id, err)
		}
		if len(pending) == 0 {
			r.mu.Lock()
			r.settled[e.seq] = true
			r.mu.Unlock()
			settled++
		}
	}
	return settled, nil
}
