package groupstate

import (
	"fmt"
	"time"
)

// Claims the store does not know. A member that reports an epoch and shards a group has no
// record of (the group does not exist, or exists empty) either was dropped by a deletion, or
// the store lost its state (FLUSHALL, a restart without persistence, a lagging replica) while
// that member kept reading: it may read those shards until its lease runs out. The member is
// told to rejoin; the group's grants are held for a lease (a hold of that group only, so that
// a buggy client cannot hold any other group).

// ClaimHold is a hold of one group's grants that a member's unknown claims call for: the shell
// holds the group's grants until Until and reports the loss with Reason.
type ClaimHold struct {
	Until  time.Time
	Reason string
}

// claimHoldFor is how long a member's claims may still be read: one lease, plus the heartbeat
// interval the member may wait before its next heartbeat.
func claimHoldFor(cfg Config) time.Duration { return cfg.LeaseTTL + cfg.HeartbeatInterval }

// UnknownGroupDecision answers a heartbeat for a group that exists nowhere.
type UnknownGroupDecision struct {
	// Create: the heartbeat is a join and groups are created implicitly. The shell creates the
	// group (subject to its own limits) and sends the heartbeat to it; Response is unset.
	// A creation that fails is answered with Unevaluated (CauseGroupLimit, CauseStreamMissing,
	// CauseCreateFailed).
	Create bool
	// Response is the answer when the group is not created.
	Response Response
	// Hold, when non-zero, is a hold of this group's grants (should it be created soon).
	Hold ClaimHold
}

// UnknownGroup decides a heartbeat hb for group groupName of stream streamPrefix, which the
// store does not have. explicit: groups are created only by the admin API (groups.creation:
// explicit). hb passed Reject.
func UnknownGroup(hb *Heartbeat, streamPrefix, groupName string, explicit bool, cfg Config, now time.Time) UnknownGroupDecision {
	switch {
	case hb.MemberEpoch < 0:
		// A leave from a group that does not exist: nothing to release (answered like the
		// leave of an unknown member).
		return UnknownGroupDecision{Response: answer(hb, StatusOK, -1, hb.MetadataVersion, "")}
	case hb.MemberEpoch > 0:
		d := UnknownGroupDecision{Response: answer(hb, StatusUnknownMemberID, hb.MemberEpoch, hb.MetadataVersion, fmt.Sprintf(
			"group %s of stream %s does not exist (never created, or deleted): drop all shards and rejoin with memberEpoch 0",
			groupName, streamPrefix))}
		if n := len(hb.Owned) + len(hb.Revoking); n > 0 {
			d.Hold = ClaimHold{Until: now.Add(claimHoldFor(cfg)), Reason: fmt.Sprintf(
				"member %q reports memberEpoch %d and %d shard(s) of a group the store does not have", hb.MemberID, hb.MemberEpoch, n)}
		}
		return d
	case explicit:
		return UnknownGroupDecision{Response: answer(hb, StatusUnknownMemberID, hb.MemberEpoch, hb.MetadataVersion, fmt.Sprintf(
			"group %s of stream %s does not exist and groups.creation is explicit: create it with POST /coord/v1/streams/{streamPrefix}/groups/{consumerGroup}, then rejoin with memberEpoch 0",
			groupName, streamPrefix))}
	}
	return UnknownGroupDecision{Create: true}
}

// UnknownClaims decides whether a heartbeat the group rejected (its Decision answered
// UNKNOWN_MEMBER_ID with no Change) calls for a hold: the member reports an epoch and shards
// that this group, empty, has never heard of. youngDataSet: the store's data set is younger than
// a lease, so other members may have joined already while this one, of the earlier data set,
// was still retrying: its claim counts anyway. A hold that would not extend the current one is
// not returned. An identity refusal (MEMBER_ID_IN_USE, another principal) is never a sign of
// store loss: it is answered only for a member the group knows.
func (g *Group) UnknownClaims(hb *Heartbeat, youngDataSet bool, now time.Time) (ClaimHold, bool) {
	n := len(hb.Owned) + len(hb.Revoking)
	if hb.MemberEpoch <= 0 || n == 0 || g.Known(hb.MemberID) {
		return ClaimHold{}, false
	}
	if !youngDataSet && g.Occupied() > 0 {
		return ClaimHold{}, false
	}
	until := now.Add(claimHoldFor(g.cfg))
	if !until.After(g.holdUntil) {
		return ClaimHold{}, false
	}
	return ClaimHold{Until: until, Reason: fmt.Sprintf("member %q reports memberEpoch %d and %d shard(s) the store does not know",
		hb.MemberID, hb.MemberEpoch, n)}, true
}
