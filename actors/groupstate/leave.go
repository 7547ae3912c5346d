package groupstate

import (
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/answer"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// leave handles memberEpoch -1. A leave means "I have stopped reading every shard I do not
// report as DRAINING" (SPEC §4): shards listed in ownedShards, reported REVOKED, or not listed
// at all are free at once; only DRAINING ones stay blocked. This is what the reference Kotlin
// client sends: it stops its workers, then sends one leave listing ownedShards plus
// revokingShards marked REVOKED or DRAINING. Freeing at once is what keeps a rolling deploy
// from leaving shards unread for a whole lease.
//
// A shard reported REVOKING is treated like DRAINING (blocked): REVOKING says the member's
// reader has not stopped yet (our membersdk reports exactly that while its leave drains), so
// freeing it would let another member read it at the same time. The Kotlin client never sends
// REVOKING in a leave, so it loses nothing.
//
//   - unknown or EXPIRED member: OK with memberEpoch -1 and no change (idempotent, KAFKA-17116),
//     unless it still drains something: UNKNOWN_MEMBER_ID, stop at once (nobody vouches for
//     those shards any more, e.g. after the store lost the member's record).
//   - nothing DRAINING (or REVOKING): the member is deleted and everything it had is free at once;
//     groupEpoch++ if it was in the target.
//   - some DRAINING: it becomes (or stays) LEAVING, out of the target, holding only those
//     shards; each is freed when a later leave no longer reports it DRAINING. The rebalance
//     timeout applies from the first leave: past it, the member is fenced and its shards stay
//     blocked until its lease expires, as for any revocation that does not finish.
//   - a FENCED member may leave once it drains nothing (its blocked shards are then free);
//     DRAINING a shard it was not given fences it (the shard is blocked if it was free).
func (g *Group) leave(hb *model.Heartbeat, r answer.Report, now time.Time) Decision {
	m := g.members[hb.MemberID]
	still := r.Draining
	if m == nil || m.State == model.StateExpired {
		if len(still) > 0 {
			// It still reads shards the coordinator does not know it has (its lease expired,
			// or the store lost its record): they may be handed out, so it must stop now.
			return reject(g, hb, model.StatusUnknownMemberID, 0, fmt.Sprintf(
				"member %q is not known to group %q (its lease expired, or the coordinator lost its state) but still drains %v; stop reading every shard at once",
				hb.MemberID, g.meta.ConsumerGroup, still))
		}
		return reject(g, hb, model.StatusOK, -1, "")
	}
	if m.State == model.StateFenced && len(still) > 0 {
		return reject(g, hb, model.StatusFencedMemberEpoch, m.Epoch,
			fmt.Sprintf("member %q is fenced; stop reading every shard at once, then leave again draining nothing", m.ID))
	}
	if s, bad := shardset.FirstMissing(still, m.Assigned, m.Revoking); bad {
		return fenceDecision(g, m.ID, now, fmt.Sprintf("member %q drains shard %d it was not given", m.ID, s), still)
	}
	t := newTxn(g, now)
	if m.State.InTarget() {
		t.bumpGroupEpoch()
	}
	if len(still) == 0 {
		t.remove(m.ID)
		t.recompute()
		return Decision{Response: t.respond(model.StatusOK, &model.Member{ID: m.ID, Epoch: -1}, ""), Change: t.change()}
	}
	c := t.mutable(m.ID)
	if c.State != model.StateLeaving {
		// Leaving revokes shards the member was allowed to read until now: a new revocation
		// with the full rebalance timeout (also for shards an earlier one was draining).
		c.State, c.StateSince = model.StateLeaving, now
		c.RevokeDeadline = model.InstantOf(now.Add(g.cfg.RebalanceTimeout))
	}
	c.SetSessionDeadline(time.Time{}) // a static member's leave releases its instance
	bindIdentity(c, hb)
	c.Revoking = shardset.Intersect(shardset.Union(c.Assigned, c.Revoking), still)
	c.Assigned, c.Target, c.Pending = nil, nil, nil
	t.touch(c)
	t.recompute()
	resp := t.respond(model.StatusOK, c, fmt.Sprintf(
		"leaving: every shard not reported DRAINING is free now; finish draining %v, then leave again reporting them REVOKED", c.Revoking))
	resp.MemberEpoch = -1
	return Decision{Response: resp, Change: t.change()}
}
