package groupstate

import (
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// The heartbeat interval hint: how soon a member is told to come back (docs/PROTOCOL.md). The
// overdue marks that also shorten it are in overdue.go.
//
// Heartbeat interval hint. A member with nothing in flight heartbeats every
// Config.HeartbeatInterval. A member that is waiting for something — its join to be confirmed
// (STARTING), shards it was given but a previous holder has not released yet (Pending), or
// shards it was told to revoke and has not released yet (Revoking) — is told to come back
// sooner, after Short. The new owner of a moving shard thus learns it is free within
// a short interval of the release instead of up to a whole interval later, and a joining member
// takes part in the assignment one short interval after its join. The cost is bounded: only
// members with a hand-off in flight heartbeat faster, and for at most the rebalance timeout
// (revocations) or until the previous holder releases or expires (pending shards).

// minShortInterval is the floor of ShortInterval: a hand-off in flight never makes a member heartbeat more
// often than this.
const minShortInterval = 50 * time.Millisecond

// shortIntervalDivisor divides the heartbeat interval into the short one.
const shortIntervalDivisor = 10

// ShortInterval is the interval told to members with a hand-off in flight: the heartbeat
// interval / shortIntervalDivisor, at least minShortInterval, never more than the interval.
func ShortInterval(cfg model.Config) time.Duration {
	d := max(cfg.HeartbeatInterval/shortIntervalDivisor, minShortInterval)
	return min(d, cfg.HeartbeatInterval)
}

// intervalFor is the heartbeat interval to tell member c (its version after the evaluation) in a
// response with status st: ShortInterval when st lets the member act on its assignment (OK,
// SYNC_METADATA) and the member is STARTING, has Pending shards or still has shards to revoke;
// Config.HeartbeatInterval otherwise.
//
// othersOverdue (another member holding shards went silent: the overdue marks of overdue.go) also
// makes it ShortInterval, so that the others learn of its shards' release soon after its expiry.
func intervalFor(cfg model.Config, st model.Status, c *model.Member, othersOverdue bool) time.Duration {
	switch st {
	case model.StatusOK, model.StatusSyncMetadata:
	default:
		return cfg.HeartbeatInterval
	}
	if c == nil || c.Epoch < 0 {
		return cfg.HeartbeatInterval
	}
	if othersOverdue || c.State == model.StateStarting || len(c.Pending) > 0 || len(c.Revoking) > 0 {
		return ShortInterval(cfg)
	}
	return cfg.HeartbeatInterval
}
