package interval

import (
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Heartbeat interval hint. A member with nothing in flight heartbeats every
// Config.HeartbeatInterval. A member that is waiting for something — its join to be confirmed
// (STARTING), shards it was given but a previous holder has not released yet (Pending), or
// shards it was told to revoke and has not released yet (Revoking) — is told to come back
// sooner, after Short. The new owner of a moving shard thus learns it is free within
// a short interval of the release instead of up to a whole interval later, and a joining member
// takes part in the assignment one short interval after its join. The cost is bounded: only
// members with a hand-off in flight heartbeat faster, and for at most the rebalance timeout
// (revocations) or until the previous holder releases or expires (pending shards).

// MinShort is the floor of Short: a hand-off in flight never makes a member heartbeat more
// often than this.
const MinShort = 50 * time.Millisecond

// ShortDivisor divides the heartbeat interval into the short one.
const ShortDivisor = 10

// Short is the interval told to members with a hand-off in flight: the heartbeat
// interval / ShortDivisor, at least MinShort, never more than the interval.
func Short(cfg model.Config) time.Duration {
	d := max(cfg.HeartbeatInterval/ShortDivisor, MinShort)
	return min(d, cfg.HeartbeatInterval)
}

// For is the heartbeat interval to tell member c (its version after the evaluation) in a
// response with status st: Short when st lets the member act on its assignment (OK,
// SYNC_METADATA) and the member is STARTING, has Pending shards or still has shards to revoke;
// Config.HeartbeatInterval otherwise.
//
// othersOverdue (another member holding shards went silent: groupstate's overdue marks) also
// makes it Short, so that the others learn of its shards' release soon after its expiry.
func For(cfg model.Config, st model.Status, c *model.Member, othersOverdue bool) time.Duration {
	switch st {
	case model.StatusOK, model.StatusSyncMetadata:
	default:
		return cfg.HeartbeatInterval
	}
	if c == nil || c.Epoch < 0 {
		return cfg.HeartbeatInterval
	}
	if othersOverdue || c.State == model.StateStarting || len(c.Pending) > 0 || len(c.Revoking) > 0 {
		return Short(cfg)
	}
	return cfg.HeartbeatInterval
}
