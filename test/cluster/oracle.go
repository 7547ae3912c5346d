package cluster

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/redisstream/coordinator/api/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// Oracle is the "told" oracle: it records every heartbeat exchange of the
// simulated members (harness.Exchange) and judges the coordinator by what it
// told them, independently of its own monitoring views.
//
// A member may read a shard from the moment it receives an answer that
// leaves the shard in what it reads or drains, until the first of: it sends
// a heartbeat that no longer lists the shard (owned, or revoking and not
// REVOKED; a leave lists only DRAINING shards), it receives FENCED or
// UNKNOWN, or its self-fence deadline passes — the send time of its last
// successful heartbeat plus SelfFenceAfter(lease), as membersdk computes it.
// Those are the member's read intervals (Intervals). The coordinator is
// correct when no two members' intervals on one shard overlap (Overlaps)
// and no epoch it tells goes backwards (Regressions).
type Oracle struct {
	mu sync.Mutex
	ex []harness.Exchange
}

// Record adds one exchange; safe for concurrent use (pass it as
// harness.FailoverMember.Observe).
func (o *Oracle) Record(e harness.Exchange) {
	o.mu.Lock()
	o.ex = append(o.ex, e)
	o.mu.Unlock()
}

// Exchanges returns a copy of everything recorded, in recording order.
func (o *Oracle) Exchanges() []harness.Exchange {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]harness.Exchange(nil), o.ex...)
}

// SelfFenceAfter is how long a member may go without a successful heartbeat
// before it stops reading: membersdk's default (lease − max(lease/5, 1s), or
// lease/2 when that leaves nothing).
func SelfFenceAfter(lease time.Duration) time.Duration {
	after := lease - max(lease/5, time.Second)
	if after <= 0 {
		after = lease / 2
	}
	return after
}

// Interval is a time during which Member may read Shard.
type Interval struct {
	Member   string
	Shard    int
	From, To time.Time
}

// okLike are the answers after which a member applies the assignment and
// counts the heartbeat as successful (membersdk).
func okLike(s protocol.Status) bool {
	return s == protocol.StatusOK || s == protocol.StatusRevokePending || s == protocol.StatusSyncMetadata
}

// Intervals computes every member's read intervals from ex; intervals still
// open are closed at end (or at the member's self-fence deadline if earlier).
func Intervals(ex []harness.Exchange, end time.Time) []Interval {
	byMember := map[string][]harness.Exchange{}
	var order []string
	for _, e := range ex {
		if _, ok := byMember[e.Member]; !ok {
			order = append(order, e.Member)
		}
		byMember[e.Member] = append(byMember[e.Member], e)
	}
	var out []Interval
	for _, m := range order {
		out = append(out, memberIntervals(m, byMember[m], end)...)
	}
	return out
}

func memberIntervals(member string, ex []harness.Exchange, end time.Time) []Interval {
	sort.SliceStable(ex, func(i, j int) bool { return ex[i].SentAt.Before(ex[j].SentAt) })
	var out []Interval
	open := map[int]time.Time{}
	var deadline time.Time // self-fence deadline; zero: no successful heartbeat yet
	closeShard := func(s int, at time.Time) {
		if at.After(open[s]) {
			out = append(out, Interval{Member: member, Shard: s, From: open[s], To: at})
		}
		delete(open, s)
	}
	closeAll := func(at time.Time) {
		for _, s := range sortedKeys(open) {
			closeShard(s, at)
		}
	}
	expire := func(now time.Time) {
		if !deadline.IsZero() && now.After(deadline) {
			closeAll(deadline)
		}
	}
	for _, e := range ex {
		expire(e.SentAt)
		listed := map[int]bool{}
		if e.Request.MemberEpoch != protocol.EpochLeave {
			for _, s := range e.Request.OwnedShards {
				listed[s.ShardIndex] = true
			}
		}
		for _, r := range e.Request.RevokingShards {
			if r.State == protocol.RevokeStateDraining || (r.State != protocol.RevokeStateRevoked && e.Request.MemberEpoch != protocol.EpochLeave) {
				listed[r.Shard.ShardIndex] = true
			}
		}
		for _, s := range sortedKeys(open) {
			if !listed[s] {
				closeShard(s, e.SentAt)
			}
		}
		expire(e.RecvAt)
		if !e.Answered() {
			continue
		}
		switch st := e.Response.Status; {
		case okLike(st):
			lease := time.Duration(e.Response.MemberLeaseTTLMs) * time.Millisecond
			deadline = e.SentAt.Add(SelfFenceAfter(lease))
			reading := map[int]bool{}
			for _, s := range e.Reading {
				reading[s] = true
			}
			for _, s := range sortedKeys(open) {
				if !reading[s] {
					closeShard(s, e.RecvAt)
				}
			}
			if e.RecvAt.Before(deadline) {
				for s := range reading {
					if _, ok := open[s]; !ok {
						open[s] = e.RecvAt
					}
				}
			}
		case st == protocol.StatusFencedMemberEpoch || st == protocol.StatusUnknownMemberID:
			closeAll(e.RecvAt)
			deadline = time.Time{}
		}
	}
	expire(end)
	closeAll(end)
	return out
}

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

func sortedKeys[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }
