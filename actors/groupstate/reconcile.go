package groupstate

import (
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/actors/groupstate/shardset"
)

// Reconciling one member with its target, inside an evaluation: settle its revocations and
// epoch, then grant it free target shards (the move cap on settle is movecap.go).

// settle is the first half of reconciling member c (the txn's copy) after an accepted
// heartbeat, in the style of Kafka's CurrentAssignmentBuilder:
//
//  1. a Revoking shard that is back in c.Target moves straight back to Assigned: a member's
//     own pending revocation never blocks itself (KAFKA-16147, KAFKA-19449);
//  2. a Revoking shard the member no longer holds (absent from held) is released;
//  3. once nothing is left revoking, Assigned − Target moves to Revoking and the rebalance
//     timeout starts. While an earlier revocation still drains, newer ones wait (they stay
//     Assigned, blocking others) as in Kafka's UNREVOKED_PARTITIONS: every revocation gets the
//     full timeout instead of inheriting an older deadline, which would fence a member that
//     released the old shards on time moments after it was told about the new ones;
//     With a move cap (movecap.go) at most budget shards start revoking (budget < 0: all; 0:
//     none); the rest stay Assigned until a later heartbeat finds budget left;
//  4. once Revoking is empty and Assigned ⊆ Target the member epoch advances to the
//     assignment epoch.
//
// held is what the member reports still reading (sorted); Assigned shards missing from it
// simply have not been started yet and stay Assigned. A newly revoked shard goes to Revoking
// even when not held: the member may be starting it right now, and must see the revocation
// before it can release it.
func settle(c *model.Member, held []int, assignmentEpoch int64, now time.Time, rebalance time.Duration, budget int) {
	if back := shardset.Intersect(c.Revoking, c.Target); len(back) > 0 {
		c.Revoking = shardset.Diff(c.Revoking, back)
		c.Assigned = shardset.Union(c.Assigned, back)
	}
	c.Revoking = shardset.Intersect(c.Revoking, held)
	if revoked := shardset.Diff(c.Assigned, c.Target); len(revoked) > 0 && len(c.Revoking) == 0 && budget != 0 {
		if budget > 0 && len(revoked) > budget {
			revoked = revoked[:budget] // the move cap (movecap.go): the rest wait, still Assigned
		}
		c.RevokeDeadline = model.InstantOf(now.Add(rebalance))
		c.Revoking = revoked
		c.Assigned = shardset.Diff(c.Assigned, revoked)
	}
	if len(c.Revoking) == 0 {
		c.Revoking = nil
		c.RevokeDeadline = 0
		if c.Epoch < assignmentEpoch && len(shardset.Diff(c.Assigned, c.Target)) == 0 {
			c.PrevEpoch, c.Epoch = c.Epoch, assignmentEpoch
		}
	}
}

// grant is the second half: with nothing left to revoke, every target shard that no other
// member holds is added to c's Assigned. holderOf answers from the group's holder index (shards
// c itself holds count as free for c). Assigned shards outside the target stay (a move cap held
// their revocation back, movecap.go): they leave only by revocation. Pending is always
// recomputed as Target − Assigned.
func grant(c *model.Member, allowed bool, holderOf func(int) string) {
	if allowed && len(c.Revoking) == 0 {
		var add []int
		for _, s := range c.Target {
			if shardset.Contains(c.Assigned, s) {
				continue
			}
			if h := holderOf(s); h == "" || h == c.ID {
				add = append(add, s)
			}
		}
		if len(add) > 0 {
			c.Assigned = shardset.Union(c.Assigned, add)
		}
	}
	c.Pending = shardset.Diff(c.Target, c.Assigned)
}
