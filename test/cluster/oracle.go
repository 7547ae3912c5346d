package cluster

import (
	"sort"
	"sync"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
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

func sortedKeys[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }
