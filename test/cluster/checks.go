package cluster

import (
	"fmt"
	"sort"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// Overlaps lists every pair of intervals of different members on one shard
// that intersect: a shard two members may read at once.
func Overlaps(iv []Interval) []string {
	byShard := map[int][]Interval{}
	for _, i := range iv {
		byShard[i.Shard] = append(byShard[i.Shard], i)
	}
	var out []string
	for _, s := range sortedKeys(byShard) {
		list := byShard[s]
		sort.Slice(list, func(a, b int) bool { return list[a].From.Before(list[b].From) })
		for a := 0; a < len(list); a++ {
			for b := a + 1; b < len(list) && list[b].From.Before(list[a].To); b++ {
				if list[a].Member != list[b].Member {
					out = append(out, fmt.Sprintf("shard %d: %s may read %s–%s while %s may read %s–%s", s,
						list[a].Member, clock(list[a].From), clock(list[a].To), list[b].Member, clock(list[b].From), clock(list[b].To)))
				}
			}
		}
	}
	return out
}

// Regressions lists epochs that went backwards in what members were told:
// a member's memberEpoch (positive values, in the member's own order), and
// the groupEpoch, assignmentEpoch and metadataVersion of any answer whose
// request was sent after another answer carrying a higher value had been
// received (real-time order, so concurrent requests are never compared).
func Regressions(ex []harness.Exchange) []string {
	var ok []harness.Exchange
	for _, e := range ex {
		if e.Answered() && okLike(e.Response.Status) {
			ok = append(ok, e)
		}
	}
	var out []string
	last := map[string]harness.Exchange{}
	bySent := append([]harness.Exchange(nil), ok...)
	sort.SliceStable(bySent, func(i, j int) bool { return bySent[i].SentAt.Before(bySent[j].SentAt) })
	for _, e := range bySent {
		if e.Response.MemberEpoch <= 0 {
			continue
		}
		if p, seen := last[e.Member]; seen && e.Response.MemberEpoch < p.Response.MemberEpoch {
			out = append(out, fmt.Sprintf("%s: memberEpoch %d at %s after %d at %s", e.Member,
				e.Response.MemberEpoch, clock(e.RecvAt), p.Response.MemberEpoch, clock(p.RecvAt)))
		}
		last[e.Member] = e
	}
	byRecv := append([]harness.Exchange(nil), ok...)
	sort.SliceStable(byRecv, func(i, j int) bool { return byRecv[i].RecvAt.Before(byRecv[j].RecvAt) })
	type high struct {
		v  int64
		by harness.Exchange
	}
	fields := []struct {
		name string
		get  func(protocol.HeartbeatResponse) int64
	}{
		{"groupEpoch", func(r protocol.HeartbeatResponse) int64 { return r.GroupEpoch }},
		{"assignmentEpoch", func(r protocol.HeartbeatResponse) int64 { return r.AssignmentEpoch }},
		{"metadataVersion", func(r protocol.HeartbeatResponse) int64 { return r.MetadataVersion }},
	}
	for _, f := range fields {
		var h high
		j := 0
		for _, e := range bySent {
			for ; j < len(byRecv) && byRecv[j].RecvAt.Before(e.SentAt); j++ {
				if v := f.get(byRecv[j].Response); v > h.v {
					h = high{v, byRecv[j]}
				}
			}
			if v := f.get(e.Response); v < h.v {
				out = append(out, fmt.Sprintf("%s %d told to %s (sent %s via %s) after %d told to %s (received %s via %s)",
					f.name, v, e.Member, clock(e.SentAt), e.URL, h.v, h.by.Member, clock(h.by.RecvAt), h.by.URL))
			}
		}
	}
	return out
}

// Gap is a time no member could read Shard.
type Gap struct {
	Shard int
	From  time.Time
	Len   time.Duration
}

func (g Gap) String() string {
	return fmt.Sprintf("shard %d unowned %s from %s", g.Shard, g.Len, clock(g.From))
}

// Gaps lists, for shards 0..shards-1, the times within [from, to] that no
// member could read the shard, longest first.
func Gaps(iv []Interval, shards int, from, to time.Time) []Gap {
	byShard := map[int][]Interval{}
	for _, i := range iv {
		byShard[i.Shard] = append(byShard[i.Shard], i)
	}
	var out []Gap
	for s := 0; s < shards; s++ {
		list := byShard[s]
		sort.Slice(list, func(a, b int) bool { return list[a].From.Before(list[b].From) })
		cursor := from
		for _, i := range list {
			if !i.To.After(cursor) {
				continue
			}
			if i.From.After(cursor) {
				if i.From.After(to) {
					break
				}
				out = append(out, Gap{Shard: s, From: cursor, Len: i.From.Sub(cursor)})
			}
			cursor = i.To
		}
		if cursor.Before(to) {
			out = append(out, Gap{Shard: s, From: cursor, Len: to.Sub(cursor)})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Len > out[b].Len })
	return out
}

// Refusals lists the FENCED and UNKNOWN answers received at or after from.
func Refusals(ex []harness.Exchange, from time.Time) []string {
	var out []string
	for _, e := range ex {
		if !e.Answered() || e.RecvAt.Before(from) {
			continue
		}
		if st := e.Response.Status; st == protocol.StatusFencedMemberEpoch || st == protocol.StatusUnknownMemberID {
			out = append(out, fmt.Sprintf("%s told %s at %s via %s: %s", e.Member, st, clock(e.RecvAt), e.URL, e.Response.Message))
		}
	}
	return out
}
