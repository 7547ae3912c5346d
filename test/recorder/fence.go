package recorder

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// The fence-history check (issue 13): the coordinator names one owner per
// fencing token of a shard, and a token only grows. So, from the members'
// acknowledgements alone, independently of their clocks' windows:
//
//   - a token acknowledged with by two different members means two members
//     held the same fence: a double-processing window;
//   - a member acknowledging with a token older than one another member
//     already acknowledged with (earlier ack time) means an owner whose fence
//     had moved on still got an ack through: a double-processing window.
//     Acks are ordered by the time the XACK was sent; only acks of
//     different members are compared (one process's own acks may be
//     reported slightly out of order by its concurrent workers);
//   - a token above the shard's final token in Redis (ReadFences) was never
//     issued by the coordinator. Only shards ReadFences read take part: a
//     shard retired by a scale-in (or an earlier incarnation of one created
//     again, see Incarnations) has no final token to compare with.
//
// Acks with token 0 (unfenced, or a member process that does not record
// tokens) take no part.

// ReadFences reads the final fence token of each shard 0..shards-1 of
// (streamPrefix, group) from Redis (protocol.FenceKey; a missing fence reads
// as 0). Check then also verifies that no recorded token exceeds its shard's
// final token. Call it once the run is over.
func (r *Recorder) ReadFences(ctx context.Context, rdb redis.UniversalClient, streamPrefix, group string, shards int) error {
	final := map[int]int64{}
	for s := 0; s < shards; s++ {
		key := protocol.FenceKey(streamPrefix+":"+strconv.Itoa(s), group)
		v, err := rdb.HGet(ctx, key, "token").Int64()
		if err != nil && !errors.Is(err, redis.Nil) {
			return fmt.Errorf("HGET %s token: %w", key, err)
		}
		final[s] = v
	}
	r.mu.Lock()
	r.finalTokens = final
	r.mu.Unlock()
	return nil
}

// fenceOverlaps applies the fence-history check to the acknowledgements in
// lines; finalTokens may be nil (not read). It returns one description per
// violation (deduplicated per shard, members and tokens) and the number of
// acknowledgements that carried a token.
func fenceOverlaps(lines []Line, finalTokens map[int]int64) ([]string, int) {
	byShard := map[int][]Line{}
	fenced := 0
	for _, l := range lines {
		if l.Kind == "acked" && l.Token > 0 {
			fenced++
			byShard[l.Shard] = append(byShard[l.Shard], l)
		}
	}
	shards := make([]int, 0, len(byShard))
	for s := range byShard {
		shards = append(shards, s)
	}
	sort.Ints(shards)
	out := []string{}
	seen := map[string]bool{}
	add := func(key, msg string) { // one description per key: the first occurrence
		if !seen[key] {
			seen[key] = true
			out = append(out, msg)
		}
	}
	for _, s := range shards {
		acks := byShard[s]
		// Ties broken by token, so two acks sent in the same nanosecond are
		// not misread as a step back.
		sort.SliceStable(acks, func(i, j int) bool {
			if acks[i].At != acks[j].At {
				return acks[i].At < acks[j].At
			}
			return acks[i].Token < acks[j].Token
		})
		holder := map[int64]string{} // token → first member acking with it
		type high struct {
			token int64
			at    int64
		}
		highest := map[string]high{} // member → highest token acked so far, and when
		for _, l := range acks {
			if m, ok := holder[l.Token]; !ok {
				holder[l.Token] = l.Member
			} else if m != l.Member {
				add(fmt.Sprintf("shared %d %d %s %s", s, l.Token, m, l.Member),
					fmt.Sprintf("shard %d: token %d acknowledged by both %s and %s (%s at %s)", s, l.Token, m, l.Member, l.Member, clock(l.At)))
			}
			for m, h := range highest {
				if m != l.Member && h.token > l.Token {
					add(fmt.Sprintf("older %d %s %d %s %d", s, l.Member, l.Token, m, h.token),
						fmt.Sprintf("shard %d: %s acknowledged with token %d at %s after %s acknowledged with token %d at %s",
							s, l.Member, l.Token, clock(l.At), m, h.token, clock(h.at)))
				}
			}
			if h := highest[l.Member]; l.Token > h.token {
				highest[l.Member] = high{l.Token, l.At}
			}
			if ft, ok := finalTokens[s]; ok && l.Token > ft {
				add(fmt.Sprintf("above %d %s %d", s, l.Member, l.Token),
					fmt.Sprintf("shard %d: %s acknowledged with token %d, above the shard's final fence token %d", s, l.Member, l.Token, finalTokens[s]))
			}
		}
	}
	return out, fenced
}
