package groupstate

import (
	"fmt"
	"slices"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/limits"
	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// admit applies the join limits to a join of hb.MemberID (m is its current record, nil if
// unknown). It returns the refusal decision (ok false), or the bucket to install (nil when the
// rate limit is off or does not apply).
func (g *Group) admit(hb *model.Heartbeat, m *model.Member, now time.Time) (*limits.Bucket, Decision, bool) {
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
	b, ok := g.bucket.Take(now, g.cfg.JoinRate, g.cfg.JoinBurst)
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
		if m := t.get(id); m != nil && limits.Droppable(m) {
			cands = append(cands, m)
		}
	}
	for _, c := range t.changed {
		if t.g.members[c.ID] == nil && limits.Droppable(c) {
			cands = append(cands, c)
		}
	}
	slices.SortFunc(cands, limits.OldestFirst)
	for _, m := range cands {
		if n <= limit {
			break
		}
		t.remove(m.ID)
		t.trimmed++
		n--
	}
}
