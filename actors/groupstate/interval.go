package groupstate

import "time"

// Heartbeat interval hint. A member with nothing in flight heartbeats every
// Config.HeartbeatInterval. A member that is waiting for something — its join to be confirmed
// (STARTING), shards it was given but a previous holder has not released yet (Pending), or
// shards it was told to revoke and has not released yet (Revoking) — is told to come back
// sooner, after ShortInterval. The new owner of a moving shard thus learns it is free within
// a short interval of the release instead of up to a whole interval later, and a joining member
// takes part in the assignment one short interval after its join. The cost is bounded: only
// members with a hand-off in flight heartbeat faster, and for at most the rebalance timeout
// (revocations) or until the previous holder releases or expires (pending shards).

// MinShortInterval is the floor of ShortInterval: a hand-off in flight never makes a member
// heartbeat more often than this.
const MinShortInterval = 50 * time.Millisecond

// ShortIntervalDivisor divides the heartbeat interval into the short one.
const ShortIntervalDivisor = 10

// ShortInterval is the interval told to members with a hand-off in flight: the heartbeat
// interval / ShortIntervalDivisor, at least MinShortInterval, never more than the interval.
func ShortInterval(cfg Config) time.Duration {
	d := max(cfg.HeartbeatInterval/ShortIntervalDivisor, MinShortInterval)
	return min(d, cfg.HeartbeatInterval)
}

// IntervalFor is the heartbeat interval to tell member c (its version after the evaluation)
// in a response with status st: ShortInterval when st lets the member act on its assignment
// (OK, REVOKE_PENDING, SYNC_METADATA) and the member is STARTING, has Pending shards or
// still has shards to revoke; Config.HeartbeatInterval otherwise.
func IntervalFor(cfg Config, st Status, c *Member) time.Duration {
	switch st {
	case StatusOK, StatusRevokePending, StatusSyncMetadata:
	default:
		return cfg.HeartbeatInterval
	}
	if c == nil || c.Epoch < 0 {
		return cfg.HeartbeatInterval
	}
	if c.State == StateStarting || len(c.Pending) > 0 || len(c.Revoking) > 0 {
		return ShortInterval(cfg)
	}
	return cfg.HeartbeatInterval
}
