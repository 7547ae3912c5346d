package group

import (
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/persistence"
)

// newDataSetQuiet is why a member's shards are pending during the quiet wait.
const newDataSetQuiet = "new coordinator data set (Redis held no coordinator state): waiting about one heartbeat interval for members of an earlier data set to report before the first grant"

// QuietWait is how long a group activated in a young data set grants nothing:
// one heartbeat interval (the longest a member's retries wait) and a quarter of one
// more for the request in flight and clocks. A member waiting for its first
// shards heartbeats every short interval meanwhile, so it is granted within
// about 1.4 intervals of its first heartbeat.
func QuietWait(rules model.Config) time.Duration { return rules.HeartbeatInterval * 5 / 4 }

// The young-data-set step of activation: the quiet hold and the check for readers of an
// earlier data set.

// quietHold holds state's grants for QuietWait from activated,
// when the group was activated in a young data set (no-op otherwise).
func (a *groupActor) quietHold(state *groupstate.Group, activated time.Time) {
	if a.youngDataSet(activated) {
		state.HoldGrantsFor(activated.Add(QuietWait(a.deps.Rules)), newDataSetQuiet)
	}
}

// youngDataSet reports whether now is within the new data set's first lease.
func (a *groupActor) youngDataSet(now time.Time) bool {
	return now.Before(a.deps.Node.DataSet().Until)
}

// checkPriorReaders looks, for a group with no stored state in a young data
// set, for Redis consumers of its consumer group that were active within one
// lease + heartbeat interval on any of its shard streams: members of an
// earlier data set still reading. Then the group grants nothing for a lease
// (reported like any store loss). An error means the check could not be
// made: the group is not served yet (members get RETRY).
func (a *groupActor) checkPriorReaders(state *groupstate.Group, stream persistence.StreamRecord, now time.Time) error {
	if !a.youngDataSet(now) {
		return nil
	}
	shards := make([]int, shardSet(stream))
	for i := range shards {
		shards[i] = i
	}
	if len(shards) == 0 {
		return nil
	}
	sctx, cancel := a.storeCtx()
	defer cancel()
	offs, err := a.deps.Provisioner.ShardOffsets(sctx, a.key.StreamPrefix, a.key.ConsumerGroup, shards)
	if err != nil {
		return fmt.Errorf("read the consumers of the shard streams: %w", err)
	}
	window := a.deps.Rules.LeaseTTL + a.deps.Rules.HeartbeatInterval
	for i, o := range offs {
		for _, c := range o.Consumers {
			idle := time.Duration(c.IdleMs) * time.Millisecond
			if idle >= window {
				continue
			}
			until := now.Add(window)
			state.HoldGrantsUntil(until)
			a.deps.Node.GroupStateLost(a.key, groupdeps.LossActiveReaders, fmt.Sprintf(
				"shard stream %s:%d has Redis consumer %q of consumer group %s active %s ago, but the store has no record of this group: "+
					"Redis lost its data (flush, restart without persistence) while members kept reading",
				a.key.StreamPrefix, shards[i], c.Name, a.key.ConsumerGroup, idle.Round(time.Millisecond)), until)
			return nil
		}
	}
	return nil
}
