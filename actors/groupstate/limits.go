package groupstate

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// admit applies the join limits to a join of hb.MemberID (m is its current record, nil if
// unknown). It returns the refusal decision (ok false), or the bucket to install (nil when the
// rate limit is off or does not apply).
func (g *Group) admit(hb *model.Heartbeat, m *model.Member, now time.Time) (*joinBucket, Decision, bool) {
	fresh := m == nil || m.State == model.StateExpired
	counted := m != nil && (m.State.InTarget() || m.State == model.StateLeaving)
	if g.cfg.MaxMembers > 0 && !counted && g.live+g.leaving >= g.cfg.MaxMembers {
		d := reject(g, hb, model.StatusRetry, 0, fmt.Sprintf(
			"group %q already has %d members (limit %d, config key %s); retry later, or raise the limit",
			g.meta.ConsumerGroup, g.live+g.leaving, g.cfg.MaxMembers, model.LimitMembersPerGroup))
		d.Response.Limit = model.LimitMembersPerGroup
		return nil, d, false
	}
	if g.cfg.JoinRate <= 0 || !fresh {
		return nil, Decision{}, true
	}
	b, ok := g.bucket.take(now, g.cfg.JoinRate, g.cfg.JoinBurst)
	if !ok {
		d := reject(g, hb, model.StatusRetry, 0, fmt.Sprintf(
			"too many new members are joining group %q (limit %g per second, config key %s); retry in about %s",
			g.meta.ConsumerGroup, g.cfg.JoinRate, model.LimitJoinsPerSecond, time.Duration(float64(time.Second)/g.cfg.JoinRate).Round(time.Millisecond)))
		d.Response.Limit = model.LimitJoinsPerSecond
		return nil, d, false
	}
	return &b, Decision{}, true
}

// trimRetained deletes, within the txn, the oldest EXPIRED members and FENCED members holding
// nothing while the group would keep more than MaxRetained EXPIRED/FENCED members.
func (t *txn) trimRetained() {
	limit := t.g.cfg.MaxRetained
	if limit <= 0 {
		return
	}
	n := t.g.retained
	for _, c := range t.changed {
		if old := t.g.members[c.ID]; old != nil && old.State.Retained() {
			n--
		}
		if c.State.Retained() {
			n++
		}
	}
	for _, id := range t.removed {
		if old := t.g.members[id]; old != nil && old.State.Retained() && t.pos(id) < 0 {
			n--
		}
	}
	if n <= limit {
		return
	}
	var cands []*model.Member
	for id := range t.g.members {
		if m := t.get(id); m != nil && droppable(m) {
			cands = append(cands, m)
		}
	}
	for _, c := range t.changed {
		if t.g.members[c.ID] == nil && droppable(c) {
			cands = append(cands, c)
		}
	}
	slices.SortFunc(cands, oldestFirst)
	for _, m := range cands {
		if n <= limit {
			break
		}
		t.remove(m.ID)
		t.trimmed++
		n--
	}
}

// The pure parts of the limits: the join token bucket and which retained members MaxRetained
// drops first.

// joinBucket is the volatile token bucket of Config.JoinRate. Evaluations never mutate the group,
// so a consumed token travels in the Change and Apply installs it. The zero joinBucket is full.
type joinBucket struct {
	tokens  float64
	last    time.Time
	started bool
}

// take refills the bucket up to now and takes one token; ok is false when none is left.
// burst ≤ 0 means max(1, floor(rate)). A clock that goes back refills nothing.
func (b joinBucket) take(now time.Time, rate float64, burst int) (joinBucket, bool) {
	capacity := float64(burst)
	if burst <= 0 {
		capacity = max(1, math.Floor(rate))
	}
	if !b.started {
		b = joinBucket{tokens: capacity, last: now, started: true}
	}
	if now.After(b.last) {
		b.tokens = min(capacity, b.tokens+now.Sub(b.last).Seconds()*rate)
		b.last = now
	}
	if b.tokens < 1 {
		return b, false
	}
	b.tokens--
	return b, true
}

// droppable reports whether MaxRetained may drop m: it is EXPIRED, or FENCED holding nothing.
func droppable(m *model.Member) bool {
	return m.State == model.StateExpired || (m.State == model.StateFenced && len(m.Assigned)+len(m.Revoking) == 0)
}

// oldestFirst orders droppable members the way MaxRetained drops them: the longest in their
// state first, then by id.
func oldestFirst(a, b *model.Member) int {
	if c := a.StateSince.Compare(b.StateSince); c != 0 {
		return c
	}
	if a.ID < b.ID {
		return -1
	}
	if a.ID > b.ID {
		return 1
	}
	return 0
}
