package groupstate

import (
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Timers are inputs: the shell arms one timer per member at NextDeadline and calls Expire when
// it fires (a stale timer yields nil). Tick evaluates every member and is a safety net.

// NextDeadline returns when the member's timer must fire next: the earlier of its lease
// deadline and, while it is revoking (and not fenced), its revoke deadline, each deferred by
// the hand-over grace if one applies (handover.go). ok is false for unknown and EXPIRED members.
func (g *Group) NextDeadline(memberID string) (time.Time, bool) {
	m := g.members[memberID]
	if m == nil || m.State == model.StateExpired || m.LeaseDeadline.IsZero() {
		return time.Time{}, false
	}
	d := dueAt(g, m, m.LeaseDeadline.Time())
	if m.State != model.StateFenced && len(m.Revoking) > 0 && !m.RevokeDeadline.IsZero() {
		d = earlier(d, dueAt(g, m, m.RevokeDeadline.Time()))
	}
	return d, true
}

// Expire evaluates one member's timers at now: lease passed → EXPIRED (everything it held is
// released; groupEpoch++ if it was in the target); revoke deadline passed with shards still
// revoking → FENCED. Nil when nothing is due.
func (g *Group) Expire(memberID string, now time.Time) *Change {
	t := newTxn(g, now)
	if !t.due(memberID) {
		return nil
	}
	t.recompute()
	return t.change()
}

// Tick evaluates every member's timers at now, in one Change (one recompute at most).
func (g *Group) Tick(now time.Time) *Change {
	t := newTxn(g, now)
	any := false
	for _, id := range sortedIDs(g) {
		if t.due(id) {
			any = true
		}
	}
	if !any {
		return nil
	}
	t.recompute()
	return t.change()
}

// due applies whatever timer of member id is due at t.now; false if none.
func (t *txn) due(id string) bool {
	m := t.g.members[id]
	if m == nil || m.State == model.StateExpired {
		return false
	}
	if m.Away() && len(m.Revoking) > 0 && !t.now.Before(dueAt(t.g, m, m.SessionDeadline())) {
		t.holdEnded(id)
		return true
	}
	if !m.LeaseDeadline.IsZero() && !t.now.Before(dueAt(t.g, m, m.LeaseDeadline.Time())) {
		t.expire(id)
		return true
	}
	if m.State != model.StateFenced && len(m.Revoking) > 0 && !m.RevokeDeadline.IsZero() && !t.now.Before(dueAt(t.g, m, m.RevokeDeadline.Time())) {
		t.fence(id)
		return true
	}
	return false
}

// Prune deletes EXPIRED members and FENCED members whose lease has passed, once they have
// been in that state for Retention. Nil when there is nothing to drop.
func (g *Group) Prune(now time.Time) *Change {
	t := newTxn(g, now)
	for _, id := range sortedIDs(g) {
		m := g.members[id]
		if m.State != model.StateExpired && m.State != model.StateFenced {
			continue
		}
		if now.Before(m.StateSince.Add(g.cfg.Retention)) {
			continue
		}
		if m.State == model.StateFenced && (m.LeaseDeadline.IsZero() || now.Before(dueAt(g, m, m.LeaseDeadline.Time()))) {
			continue
		}
		t.remove(id)
	}
	return t.change()
}

// Resize changes the shard set (and metadata version, which never regresses): groupEpoch++
// and the target is recomputed. Shards beyond the new count are revoked from their holders on
// their next heartbeats. Nil for a shardCount outside [0, MaxShardCount].
func (g *Group) Resize(shardCount int, metadataVersion int64) *Change {
	if shardCount < 0 || shardCount > MaxShardCount {
		return nil
	}
	t := newTxn(g, time.Time{})
	t.meta.ShardCount = shardCount
	t.meta.MetadataVersion = max(t.meta.MetadataVersion, metadataVersion)
	t.bumpGroupEpoch()
	t.recompute()
	return t.change()
}
