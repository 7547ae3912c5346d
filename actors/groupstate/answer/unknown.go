package answer

import (
	"fmt"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/model"
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

// ClaimHoldFor is how long a member's claims may still be read: one lease, plus the heartbeat
// interval the member may wait before its next heartbeat.
func ClaimHoldFor(cfg model.Config) time.Duration { return cfg.LeaseTTL + cfg.HeartbeatInterval }

// UnknownGroupDecision answers a heartbeat for a group that exists nowhere.
type UnknownGroupDecision struct {
	// Create: the heartbeat is a join and groups are created implicitly. The shell creates the
	// group (subject to its own limits) and sends the heartbeat to it; model.Response is unset.
	// A creation that fails is answered with Unevaluated (CauseGroupLimit, CauseStreamMissing,
	// CauseCreateFailed).
	Create bool
	// model.Response is the answer when the group is not created.
	Response model.Response
	// Hold, when non-zero, is a hold of this group's grants (should it be created soon).
	Hold ClaimHold
}

// UnknownGroup decides a heartbeat hb for group groupName of stream streamPrefix, which the
// store does not have. explicit: groups are created only by the admin API (groups.creation:
// explicit). hb passed Reject.
func UnknownGroup(hb *model.Heartbeat, streamPrefix, groupName string, explicit bool, cfg model.Config, now time.Time) UnknownGroupDecision {
	switch {
	case hb.MemberEpoch < 0:
		// A leave from a group that does not exist: nothing to release (answered like the
		// leave of an unknown member).
		return UnknownGroupDecision{Response: Empty(hb, model.StatusOK, -1, hb.MetadataVersion, "")}
	case hb.MemberEpoch > 0:
		d := UnknownGroupDecision{Response: Empty(hb, model.StatusUnknownMemberID, hb.MemberEpoch, hb.MetadataVersion, fmt.Sprintf(
			"group %s of stream %s does not exist (never created, or deleted): drop all shards and rejoin with memberEpoch 0",
			groupName, streamPrefix))}
		if n := len(hb.Owned) + len(hb.Revoking); n > 0 {
			d.Hold = ClaimHold{Until: now.Add(ClaimHoldFor(cfg)), Reason: fmt.Sprintf(
				"member %q reports memberEpoch %d and %d shard(s) of a group the store does not have", hb.MemberID, hb.MemberEpoch, n)}
		}
		return d
	case explicit:
		return UnknownGroupDecision{Response: Empty(hb, model.StatusUnknownMemberID, hb.MemberEpoch, hb.MetadataVersion, fmt.Sprintf(
			"group %s of stream %s does not exist and groups.creation is explicit: create it with POST /coord/v1/streams/{streamPrefix}/groups/{consumerGroup}, then rejoin with memberEpoch 0",
			groupName, streamPrefix))}
	}
	return UnknownGroupDecision{Create: true}
}
